"""AppTest of the text page: bad input gets messages, widgets change what is shown, no raw HTML."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.apptest import figures, head_views, no_exception, open_page

PAGE = "pages/text_page.py"


def grid(at) -> dict:
    return next(
        f
        for f in figures(at)
        if f["layout"]["title"]["text"].startswith("Attention weights per head")
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "empty"), ("    ", "empty"), ("word " * 2500, "only the first 512")],
)
def test_bad_or_huge_input_gets_a_message(text, message):
    at = open_page(PAGE)
    at.text_area(key="ta_text").set_value(text).run()
    no_exception(at)
    assert any(message in w.value for w in at.warning)


@pytest.mark.parametrize(
    "text", ["hi", "🚀🚀 שלום مرحبا", "<b>bold</b><script>alert(1)</script>", "x" * 10_000]
)
def test_odd_input_works_without_traceback_and_no_raw_html(text):
    at = open_page(PAGE)
    at.text_area(key="ta_text").set_value(text).run()
    no_exception(at)
    assert figures(at)
    for md in at.markdown:
        assert "<script>" not in md.value and "<b>bold" not in md.value
    for fig in figures(at):
        assert "<script>" not in str(fig.get("data")), "user text reaches Plotly unescaped"


def test_heads_and_tokenizer_change_the_view():
    at = open_page(PAGE)
    assert len(grid(at)["data"]) == 4
    at.select_slider(key="ta_heads").set_value(2).run()
    assert len(grid(at)["data"]) == 2
    words = len(grid(at)["data"][0]["x"])
    at.radio(key="ta_tok").set_value("char").run()
    assert len(grid(at)["data"][0]["x"]) > words
    (view,) = head_views(at)
    assert [h["head"] for h in view["heads"]] == [0, 1] and len(view["tokens"]) > words
    at.pills(key="ta_hv_heads").set_value([1]).run()
    (view,) = head_views(at)
    assert [h["head"] for h in view["heads"]] == [1]


def test_causal_toggle_zeroes_the_upper_triangle_in_the_query_row():
    at = open_page(PAGE)
    at.toggle(key="ta_causal").set_value(True).run()
    bars = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Where"))
    from tests.support.apptest import plotly_array

    assert float(plotly_array(bars["data"][0]["y"])[1:].sum()) == 0.0  # query 0 sees only itself


def open_section(at, key: str) -> list[str]:
    """Open one lazy section; the titles of the figures shown afterwards."""
    at.session_state[key] = True
    at.run()
    no_exception(at)
    return [f["layout"]["title"]["text"] for f in figures(at)]


def test_closed_sections_cost_nothing_and_each_opens_onto_its_figures():
    at = open_page(PAGE)
    assert len(figures(at)) == 2  # the heads grid and the query row; the sections are closed
    assert any(t.startswith("Token embeddings") for t in open_section(at, "ta_open_vectors"))
    assert sum(t.startswith("sentence") for t in open_section(at, "ta_open_pad")) == 2
    assert any(t.startswith("Entropy of attention rows") for t in open_section(at, "ta_open_sat"))
    assert any(t.startswith("Where 'a' looks as") for t in open_section(at, "ta_open_temp"))


def test_shuffle_experiment_is_equivariant_only_without_positions():
    at = open_page(PAGE)
    open_section(at, "ta_open_shuffle")
    lines = {m.value.split(":")[0]: m.value for m in at.markdown if "positional =" in m.value}
    none = float(lines["**positional = none**"].split("`")[1].split()[0])
    with_pe = float(lines["**positional = sinusoidal**"].split("`")[1].split()[0])
    assert none < 1e-5 < 1e-2 < with_pe


def test_causal_experiment_masks_the_upper_triangle_and_padding_toggle_matters():
    from tests.support.apptest import plotly_array

    at = open_page(PAGE)
    open_section(at, "ta_open_causal")
    on = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("causal mask on"))
    z = np.asarray(plotly_array(on["data"][0]["z"]), dtype=float)  # (T, T)
    assert z.shape[0] > 2 and float(np.triu(z, 1).sum()) == 0.0
    np.testing.assert_allclose(z.sum(1), 1.0, atol=1e-3)
    open_section(at, "ta_open_pad")
    masked = [f for f in figures(at) if f["layout"]["title"]["text"].startswith("sentence 2")]
    at.toggle(key="ta_padmask").set_value(False).run()
    unmasked = [f for f in figures(at) if f["layout"]["title"]["text"].startswith("sentence 2")]
    assert masked[0]["data"][0]["z"] != unmasked[0]["data"][0]["z"]


def test_token_table_is_a_row_for_short_text_and_a_column_for_long_text():
    at = open_page(PAGE)
    short = at.dataframe[0].value
    assert list(short.index) == ["token", "id"] and short.shape[1] == 8  # the default sentence
    at.text_area(key="ta_text").set_value("word " * 300).run()
    long = at.dataframe[0].value
    assert list(long.columns) == ["token", "id"] and len(long) == 300


def test_presets_and_reset_win_over_the_old_value_in_the_url():
    """A preset or Reset that changes a slider's range (fewer tokens, fewer heads) still sets it:
    Streamlit seeds a re-made bound slider from the URL, which holds the value from before."""
    at = open_page(PAGE)
    at.slider(key="ta_query").set_value(3).run()
    at.pills(key="ta_hv_heads").set_value([1]).run()
    at.button(key="ta_preset_No positions: a bag of words").click().run()
    no_exception(at)
    assert at.session_state["ta_query"] == 1 and at.session_state["ta_pos"] == "none"
    assert any(f["layout"]["title"]["text"].startswith("Where 'dog'") for f in figures(at))
    (view,) = head_views(at)
    assert [h["head"] for h in view["heads"]] == [0, 1, 2, 3]  # a preset shows every head
    at.select_slider(key="ta_heads").set_value(8).run()
    at.slider(key="ta_head").set_value(2).run()
    at.button(key="ta_reset_page").click().run()
    no_exception(at)
    assert (at.session_state["ta_head"], at.session_state["ta_query"]) == (0, 0)
    assert at.session_state["ta_text"] == "a large airplane flying in the blue sky"


def shuffle_lesson(at) -> tuple[dict[str, float], str]:
    """The shuffle experiment's printed differences per encoding, and its lesson."""
    lines = [m.value for m in at.markdown if m.value.startswith("**positional =")]
    diffs = {line.split("**")[1]: float(line.split("`")[1].split()[0]) for line in lines}
    lessons = [i.value for i in at.info if "positions" in i.value and "max difference" in i.value]
    assert len(lessons) == 1, [i.value for i in at.info]
    return diffs, lessons[0]


def test_shuffle_lesson_without_the_causal_mask_is_equivariance():
    at = open_page(PAGE)
    at.selectbox(key="ta_pos").set_value("none").run()
    open_section(at, "ta_open_shuffle")
    diffs, lesson = shuffle_lesson(at)
    assert diffs["positional = none"] < 1e-5
    assert "identical up to the permutation" in lesson and "permutation-equivariant" in lesson
    assert "causal" not in lesson


def test_shuffle_lesson_with_the_causal_mask_says_the_mask_tells_the_order():
    """Repro (issue 16 item 3): causal on printed 0.93, then "the two maps are identical"."""
    at = open_page(PAGE)
    at.toggle(key="ta_causal").set_value(True).run()
    at.selectbox(key="ta_pos").set_value("none").run()
    open_section(at, "ta_open_shuffle")
    diffs, lesson = shuffle_lesson(at)
    without = diffs["positional = none"]
    assert without > 0.1, "the causal mask breaks permutation equivariance on its own"
    assert "identical" not in lesson and "no longer permutation-equivariant" in lesson
    assert "the mask alone tells the model the order" in lesson
    assert f"max difference {without:.6f}" in lesson, "the lesson quotes the printed number"


def test_long_input_shows_top_k_and_a_full_resolution_window():
    """Past 64 tokens the grid is pooled; the top-k dots and the window keep the structure."""
    at = open_page(PAGE)
    words = [f"w{i % 50}" for i in range(200)]
    at.text_area(key="ta_text").set_value(" ".join(words)).run()
    no_exception(at)
    by_title = {f["layout"]["title"]["text"]: f for f in figures(at)}
    assert any("3 largest weights" in t for t in by_title), list(by_title)
    window = next(f for t, f in by_title.items() if "around query" in t)
    columns = window["data"][0]["x"]
    assert len(columns) == 32 and columns[0].startswith("0:w0")  # query 0: tokens 0–31
    short = open_page(PAGE)
    short.text_area(key="ta_text").set_value("a short sentence").run()
    assert not any("around query" in f["layout"]["title"]["text"] for f in figures(short))
