"""A click on a heatmap's cell, in Chromium, does what the page says it does. Plotly selects no
heatmap cell, so before attnviz.figures.clickable such clicks did nothing at all: the
language-model page's head map now opens "Why does this head look there?" on the clicked cell
(issue 57), and the interventions page's patching map picks the run it shows under it, with
one tap on a phone too (static/cell_tap.js: Plotly selects nothing on a tap)."""

from __future__ import annotations

import pytest

from tests.support.browser import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser

CELL = """([chart, index]) => {  // the page position of a clickable cell's marker
  const el = document.querySelector(`.st-key-${chart} .js-plotly-plot`);
  const point = el.calcdata[el.data.length - 1][index];
  const fl = el._fullLayout, box = el.getBoundingClientRect();
  return {x: box.left + fl.xaxis._offset + fl.xaxis.l2p(point.x),
          y: box.top + fl.yaxis._offset + fl.yaxis.l2p(point.y)};
}"""
PHONE = {"width": 390, "height": 844}
COLUMNS = """(chart) => document.querySelector(`.st-key-${chart} .js-plotly-plot`).data[0]
  .x.length"""


def click_cell(page, chart: str, row: int, column: int, tap: bool = False) -> None:
    """Hover, then click (or `tap`, once, as a finger does), the cell (row, column) of the
    heatmap in the chart keyed `chart`, slightly off its centre (as a hand would)."""
    box = page.locator(f".st-key-{chart}")
    box.scroll_into_view_if_needed()
    wait_idle(page)
    at = page.evaluate(CELL, [chart, row * page.evaluate(COLUMNS, chart) + column])
    if tap:
        page.touchscreen.tap(at["x"] + 3, at["y"] + 2)
    else:
        page.mouse.move(at["x"] + 6, at["y"] + 4)
        page.mouse.click(at["x"] + 6, at["y"] + 4)
    wait_idle(page)


def selected(page, key: str) -> str:
    """The option a select box shows (its combobox's text)."""
    return page.locator(f".st-key-{key} input").input_value().strip()


def test_a_click_on_the_head_map_takes_that_cells_score_apart(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    open_app_page(page, app_url, "language-model")  # "The capital of France is"
    click_cell(page, "lm_head_chart", 4, 1)  # query ␣is, key ␣capital
    assert "lm_open_why=true" in page.url, "the section did not open"
    assert selected(page, "lm_why_query") == "4: ␣is"
    assert selected(page, "lm_why_key") == "1: ␣capital"
    said = page.get_by_text("looks from ␣is to ␣capital").first
    said.wait_for(timeout=30_000)
    click_cell(page, "lm_head_chart", 1, 3)  # the blank future: nothing changes
    assert selected(page, "lm_why_key") == "1: ␣capital"
    assert_no_exception(page, "lm_cell_click")


def test_a_tap_on_the_patching_map_picks_that_run_on_a_phone(browser, app_url):
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        open_app_page(page, app_url, "interventions")
        click_cell(page, "ip_resid_chart", 12, 2, tap=True)  # layer 12, position 2: one tap
        values = {
            key: page.locator(f".st-key-{key} input[type='range']").input_value()
            for key in ("ip_layer", "ip_pos")
        }
        assert values == {"ip_layer": "12", "ip_pos": "2"}
        assert_no_exception(page, "ip_cell_tap")
    finally:
        phone.close()
