"""A view drawn anew starts from the margins automargin reached for it before
(attnviz.ui.plotly_margins): drawn once, not twice, to the same margins as a fresh draw.

First the script alone, over plotly.js on a bare page (the cases it must get right), then the
app: self-attention's eight matrices, drawn again after a move away and back."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from attnviz.ui.plotly_margins import SCRIPT
from tests.support.bare_figures import page_html
from tests.support.browser import open_app_page, wait_drawn, wait_idle

pytestmark = pytest.mark.browser

LABELS = [f"token number {i}" for i in range(8)]
# each draw in a new div, as Streamlit mounts a changed chart: did automargin draw it again,
# and the margins it ended with
DRAW = """async ([data, layout, name]) => {
  const gd = document.createElement('div');
  document.body.appendChild(gd);
  const config = name ? {toImageButtonOptions: {filename: name}} : {};
  await Plotly.react(gd, {data, layout, config});
  await new Promise((done) => setTimeout(done, 50));  // a relayout after it, if any
  const size = gd._fullLayout._size;
  return {again: '_redrawFromAutoMarginCount' in gd._fullLayout,
          margins: [size.l, size.r, size.t, size.b]};
}"""
SIZES = """() => Object.fromEntries([...document.querySelectorAll('.js-plotly-plot')].map((gd) => {
  const size = gd._fullLayout._size;
  return [gd.querySelector('.gtitle').textContent, {again: '_redrawFromAutoMarginCount' in
    gd._fullLayout, margins: [size.l, size.r, size.t, size.b], old: !!gd.$old}];
}))"""


def heatmap(labels: list[str], z: float, height: int = 400, top: int = 40) -> list:
    n = len(labels)
    trace = {"type": "heatmap", "z": [[z * (i + j) for j in range(n)] for i in range(n)]}
    trace |= {"x": labels, "y": labels, "zmin": 0, "zmax": 20}
    axis = {"type": "category", "automargin": True}
    layout = {"width": 500, "height": height, "margin": {"l": 10, "r": 10, "t": top, "b": 10}}
    return [[trace], layout | {"xaxis": axis, "yaxis": axis}]


def close(a: list[float], b: list[float], px: float = 2) -> bool:
    return all(abs(x - y) <= px for x, y in zip(a, b, strict=True))


@pytest.fixture
def bare(browser):
    page = browser.new_page()
    with tempfile.TemporaryDirectory() as folder:
        page.goto(page_html(Path(folder)).as_uri())
        page.add_script_tag(path=str(SCRIPT))
        yield lambda fig, name="view": page.evaluate(DRAW, [*fig, name])
    page.close()


def test_a_view_drawn_again_draws_once_to_the_margins_it_reached(bare):
    fresh = bare(heatmap(LABELS, 1.0))
    assert fresh["again"] and fresh["margins"][0] > 60  # the labels pushed the left margin
    again = bare(heatmap(LABELS, 2.0))  # new cells, the same labels: drawn once
    assert not again["again"] and close(again["margins"], fresh["margins"]), (fresh, again)
    unnamed = bare(heatmap(LABELS, 2.0), None)  # not a view of the app: left as it was
    assert unnamed["again"] and unnamed["margins"] == fresh["margins"]


def test_new_labels_are_drawn_as_a_fresh_chart(bare):
    bare(heatmap(LABELS, 1.0))
    longer = [f"{label} and more" for label in LABELS]
    wide = bare(heatmap(longer, 1.0))
    assert wide["again"], wide  # new labels: what automargin reaches is not known yet
    assert not bare(heatmap(longer, 3.0))["again"]
    short = bare(heatmap(LABELS, 3.0))  # back to the shorter labels: their own margins
    assert not short["again"] and short["margins"][0] < wide["margins"][0] - 20


def test_a_chart_too_short_for_its_margins_is_drawn_as_a_fresh_one(bare):
    """180 px with 72 px above and long upright labels below: Plotly squeezes the margins, and
    starting from the squeezed ones reaches others; such a view is drawn as a fresh chart."""
    fig = heatmap(LABELS, 1.0, height=180, top=72)
    fig[1]["xaxis"] = fig[1]["xaxis"] | {"tickangle": -90}
    fresh = bare(fig)["margins"]
    assert [bare(fig)["margins"] for _ in range(3)] == [fresh] * 3


def test_a_move_back_draws_each_matrix_once_as_it_was(page, app_url):
    """m patches 4 → 3 → 4 on self-attention: back at 4, every matrix is drawn once, with the
    margins it had when the page opened (within 2 px: Plotly's pad grows from 10 to 12)."""
    open_app_page(page, app_url, "self-attention")
    wait_drawn(page)
    first = page.evaluate(SIZES)
    assert len(first) >= 6 and all(chart["again"] for chart in first.values()), first
    slider = page.locator("[data-testid='stSlider'] input[aria-label='m patches']")
    for key in ("ArrowLeft", "ArrowRight"):
        page.evaluate("() => document.querySelectorAll('.js-plotly-plot').forEach(g => g.$old = 1)")
        slider.focus()
        page.keyboard.press(key)
        wait_idle(page)
        wait_drawn(page)
    back = page.evaluate(SIZES)
    assert back.keys() == first.keys()
    redrawn = [title for title, chart in back.items() if chart["old"] or chart["again"]]
    moved = [t for t, chart in back.items() if not close(chart["margins"], first[t]["margins"])]
    assert (redrawn, moved) == ([], [])
