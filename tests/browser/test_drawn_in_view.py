"""A chart is drawn once it comes near the screen (attnviz.ui.plotly_in_view), on a server as a
person gets it: the suite's own server draws every chart at once, for checks that read them all.

Self-attention at 1920×1080: its 8 matrices stack down the page, the last ~2,300 px below the
first screen. Before the change every one was drawn on every move."""

from __future__ import annotations

import pytest

from attnviz.ui.plotly_in_view import MARGIN
from tests.support.browser import open_app_page, wait_drawn, wait_idle
from tests.support.server import serving

pytestmark = pytest.mark.browser

SCREEN = {"width": 1920, "height": 1080}
AHEAD = int(MARGIN.split("px")[0])  # px below the screen a chart is drawn ahead
FRAMES = """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")].map(f => {
  const box = f.getBoundingClientRect();
  return {top: Math.round(box.top), height: Math.round(box.height),
          drawn: !!f.querySelector('.js-plotly-plot .main-svg')};
})"""


@pytest.fixture(scope="module")
def person_url():
    with serving(every_chart=False) as app:
        yield app.url


def test_a_chart_is_drawn_as_it_comes_near_the_screen(browser, person_url):
    page = browser.new_page(viewport=SCREEN)
    try:
        open_app_page(page, person_url, "self-attention")
        wait_drawn(page)
        drawn_near_only(page.evaluate(FRAMES))
        page.locator("[data-testid='stSlider'] input[aria-label='m patches']").focus()
        page.keyboard.press("ArrowRight")  # a move redraws the near ones only
        wait_idle(page)
        wait_drawn(page)
        drawn_near_only(page.evaluate(FRAMES))
        charts = page.locator("[data-testid='stPlotlyChart']")
        for i in range(charts.count()):  # down the page, as a person scrolls
            charts.nth(i).scroll_into_view_if_needed()
        page.wait_for_function(f"() => ({FRAMES})().every(f => f.drawn)", timeout=10_000)
    finally:
        page.close()


def drawn_near_only(frames: list[dict]) -> None:
    """Every chart frame within AHEAD px below the screen drawn, every one farther not (each
    holding its height)."""
    near = [f["drawn"] for f in frames if f["top"] < SCREEN["height"] + AHEAD - 50]
    far = [f["drawn"] for f in frames if f["top"] > SCREEN["height"] + AHEAD + 50]
    assert near and all(near), frames
    assert far and not any(far), frames
    assert all(f["height"] >= 150 for f in frames), frames


def test_printing_draws_every_chart(browser, person_url):
    page = browser.new_page(viewport=SCREEN)
    try:
        open_app_page(page, person_url, "self-attention")
        assert not all(f["drawn"] for f in page.evaluate(FRAMES))
        page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
        page.wait_for_function(f"() => ({FRAMES})().every(f => f.drawn)", timeout=10_000)
    finally:
        page.close()
