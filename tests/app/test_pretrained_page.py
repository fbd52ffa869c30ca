"""AppTest of the pretrained explorer: bad input and paths get messages; widgets change the
views."""

from __future__ import annotations

import pytest

from tests.support.apptest import figures, head_views, no_exception, open_page, plotly_array

PAGE = "pages/pretrained_page.py"


def titles(at) -> list[str]:
    return [f["layout"]["title"]["text"] for f in figures(at)]


@pytest.fixture
def at():
    """A fresh app per test, so no test depends on what an earlier one set (the model itself is
    loaded once per process (model.bundled_model), so a fresh app costs one page run)."""
    return open_page(PAGE)


def test_views_are_all_there(at):
    """Rollout, the head table and the projection are built only while their sections are open
    (closed by default: a new sentence sends less); a link opens them."""
    shut = titles(at)
    assert not any(t.startswith(("Attention rollout", "Queries and keys")) for t in shut)
    assert not at.dataframe
    at = open_page(PAGE, {"pe_open_layers": "true", "pe_open_proj": "true"})
    found = titles(at)
    for start in (
        "Model view",
        "Layer 0, head 0",
        "q ∘ k",
        "softmax",
        "Attention rollout",
        "Queries and keys",
    ):
        assert any(t.startswith(start) for t in found), start
    assert len(at.dataframe[0].value) == 72
    (view,) = head_views(at)
    assert view["tokens"][0] == "[CLS]" and [h["head"] for h in view["heads"]] == [0]


def test_head_view_follows_all_heads_and_the_query_slider(at):
    at.toggle(key="pe_allheads").set_value(True).run()
    at.slider(key="pe_query").set_value(2).run()
    (view,) = head_views(at)
    assert [h["head"] for h in view["heads"]] == list(range(12)) and view["query"] == 2
    at.toggle(key="pe_hide").set_value(True).run()
    (view,) = head_views(at)
    assert "[CLS]" not in view["tokens"] and view["query"] is None  # indices shift: no pick


def test_layer_and_head_change_the_enlarged_map(at):
    at.slider(key="pe_layer").set_value(4).run()
    at.slider(key="pe_head").set_value(7).run()
    assert "Layer 4, head 7" in titles(at)


@pytest.mark.parametrize(("text", "message"), [("", "empty"), ("word " * 600, "truncated")])
def test_empty_and_long_input(at, text, message):
    at.text_area(key="pe_text").set_value(text).run()
    no_exception(at)
    assert any(message in w.value for w in at.warning)


def test_emoji_input_and_missing_model_path(at):
    at.text_area(key="pe_text").set_value("🚀🚀 שלום مرحبا").run()
    no_exception(at)
    assert any(t.startswith("Model view") for t in titles(at))
    at.text_input(key="pe_model").set_value("/no/such/model").run()  # outside the model roots
    assert any("opens a model folder only inside" in e.value for e in at.error)
    at.text_input(key="pe_model").set_value("").run()
    no_exception(at)


def test_hide_specials_removes_cls_and_sep(at):
    at.text_area(key="pe_text").set_value("hello world").run()
    at.toggle(key="pe_hide").set_value(True).run()
    big = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Layer"))
    assert "[CLS]" not in big["data"][0]["x"] and "hello" in big["data"][0]["x"]


def test_compare_section_shows_the_difference_only_when_open(at):
    assert not any(t.startswith("First − second") for t in titles(at))
    at.session_state["pe_open_compare"] = True
    at.run()
    no_exception(at)
    diff = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("First − second"))
    at.text_input(key="pe_other").set_value(at.text_area(key="pe_text").value).run()
    same = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("First − second"))
    assert (
        plotly_array(same["data"][0]["z"]).max() == 0.0 != plotly_array(diff["data"][0]["z"]).max()
    )


def test_lecture_mode_does_not_leak_into_the_shared_model_view():
    def model_view_font(at) -> int | None:
        fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Model view"))
        return fig["layout"].get("font", {}).get("size")

    plain = model_view_font(open_page(PAGE))
    lecture = open_page(PAGE)
    lecture.toggle(key="lecture").set_value(True).run()
    no_exception(lecture)
    assert model_view_font(lecture) not in (None, plain)  # enlarged for the projector
    assert model_view_font(open_page(PAGE)) == plain  # the cached figure itself is untouched
