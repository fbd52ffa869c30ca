"""The handout in Chromium (opened as a file: no server): its figures' text boxes (axis titles,
tick labels, titles) neither overlap nor reach past the figure at a laptop's and a phone's width,
for a figure drawn to crowd its axes (long tick labels, titled axes, 10-px margins, no
automargin) and a real scene's figure; the page never scrolls sideways; the math is MathML."""

from __future__ import annotations

import pytest

from attnviz.lessons.handout import handout_html, step_run
from attnviz.lessons.loader import parse_lesson
from tests.support.figure_text import clipped, collisions, read_figure_text

LESSON = """
title = "Crowded axes"
summary = "Figures drawn to crowd their axes, and $x^2$."

[[steps]]
page = "home"
title = "A crowded map"
narration = "Tick labels longer than the margins."

[[steps]]
page = "soft-select"
title = "The weights"
narration = "A real scene's figure."
"""


def crowded_figure() -> dict:
    """A map whose tick labels and axis titles cannot fit its 10-px margins."""
    keys = [f"a rather long key label {i}" for i in range(6)]
    queries = [f"query token number {i}" for i in range(5)]
    return {
        "data": [
            {
                "type": "heatmap",
                "z": [[i + j for j in range(6)] for i in range(5)],
                "x": keys,
                "y": queries,
                "showscale": False,
            }
        ],
        "layout": {
            "height": 360,
            "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
            "title": {"text": "Crowded"},
            "xaxis": {"title": {"text": "key token"}, "tickangle": -45, "automargin": False},
            "yaxis": {"title": {"text": "query token"}, "automargin": False},
        },
    }


@pytest.fixture(scope="module")
def handout(tmp_path_factory) -> str:
    lesson = parse_lesson(LESSON, "crowded.toml")
    figures = [crowded_figure(), step_run(lesson.steps[1])[0]]
    path = tmp_path_factory.mktemp("handout") / "handout.html"
    path.write_text(handout_html(lesson, figures), encoding="utf-8")
    return path.as_uri()


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_no_axis_title_sits_on_its_ticks(page, handout, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(handout)
    page.wait_for_selector(".js-plotly-plot .xtitle")
    drawn = read_figure_text(page)
    assert len(drawn["figures"]) == 2
    kinds = {t["kind"] for f in drawn["figures"] for t in f["texts"]}
    assert {"axis title", "x tick", "y tick"} <= kinds, "the probe reads the axes' text"
    found = {f["title"]: collisions(f) + clipped(f) for f in drawn["figures"]}
    assert not {title: items for title, items in found.items() if items}, found
    assert drawn["scrollWidth"] <= drawn["width"], "a wide figure scrolls in its own box"
    assert page.locator("math").count() == 1, "the summary's $x^2$ is MathML"
