"""AppTest of the text page: bad input gets messages, widgets change what is shown, no raw HTML."""

from __future__ import annotations

import pytest

from tests.conftest import figures, head_views, no_exception, open_page

PAGE = "pages/attention_on_text.py"


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
    from tests.conftest import plotly_array

    assert float(plotly_array(bars["data"][0]["y"])[1:].sum()) == 0.0  # query 0 sees only itself
