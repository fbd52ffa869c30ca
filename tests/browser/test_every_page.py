"""Every page of the navigation in headless Chromium: open, interact, no exception, no request to
any host but the local server, and no WCAG 2.1 AA violation that axe-core finds (the desktop's
share of tests/browser/test_accessibility.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from benchmarks.browser import main_widget, move_once
from tests.support.axe import described, violations
from tests.support.browser import (
    assert_no_exception,
    foreign,
    open_app_page,
    record_requests,
    wait_drawn,
    wait_idle,
)
from tests.support.pages import app_pages

pytestmark = pytest.mark.browser
PAGES = app_pages()
NO_FIGURE = {"home", "lessons"}  # menus: their widgets change what is listed, not a figure
FIGURE_DATA = """() => [...document.querySelectorAll('.js-plotly-plot')].map((el) =>
  JSON.stringify((el.data || []).map((t) => [t.x, t.y, t.z, t.text, t.customdata]))).join('|')"""


def nudge_first_widget(page) -> str:
    """Move the first main-area slider three steps, or pick another option in the first
    selectbox."""
    main = page.locator("[data-testid='stMain']")
    slider = main.locator("[data-testid='stSlider'] input[type='range']:not([disabled])")
    if slider.count():
        before = slider.first.get_attribute("aria-valuetext")
        slider.first.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        wait_idle(page)
        after = slider.first.get_attribute("aria-valuetext")
        if after == before:  # it sat at its maximum
            for _ in range(3):
                page.keyboard.press("ArrowLeft")
            wait_idle(page)
            after = slider.first.get_attribute("aria-valuetext")
        assert after != before, "the slider did not move"
        return "slider"
    select = main.locator("[data-testid='stSelectbox']")
    if select.count():
        options = page.locator("[role='option']")
        for _ in range(3):  # a click while the page still lays out may miss: open it again
            select.first.scroll_into_view_if_needed()
            wait_idle(page)
            select.first.click()
            try:
                options.first.wait_for(timeout=10_000)  # the list opens: count it then
                break
            except PlaywrightTimeout:
                continue
        options.nth(min(1, options.count() - 1)).click()
        wait_idle(page)
        return "selectbox"
    return "none"


@pytest.mark.parametrize(("path", "title", "url"), PAGES, ids=[u for _, _, u in PAGES])
def test_page_opens_and_survives_interaction_asking_only_the_local_server(
    page, app_url, path, title, url
):
    seen = record_requests(page)
    open_app_page(page, app_url, url)
    assert_no_exception(page, f"{url}-open")
    assert page.locator("h1").count() >= 1
    moved = nudge_first_widget(page)
    assert moved != "none" or url == "home", f"{title}: no slider or selectbox to change"
    if url not in NO_FIGURE:  # the page's main widget (the benchmark's) redraws a figure
        drawn = page.evaluate(FIGURE_DATA)
        kind, widget = main_widget(page, url)
        at_end = kind == "slider" and widget.get_attribute("value") == widget.get_attribute("max")
        move_once(page, kind, widget, forward=not at_end)
        wait_idle(page)
        assert page.evaluate(FIGURE_DATA) != drawn, f"{title}: its main widget changed no figure"
    assert_no_exception(page, f"{url}-after")
    wait_drawn(page)  # icons and fonts load after the run
    report = described({"desktop 1400×1000, after a widget move": violations(page)})
    assert not report, f"{title} breaks WCAG 2.1 AA rules (axe-core):\n{report}"
    assert seen, "no request was recorded"
    assert not foreign(seen), f"{title} asked other hosts: {sorted(set(foreign(seen)))}"


def test_sidebar_lists_each_page_once(page, app_url):
    open_app_page(page, app_url, "home")
    links = page.locator("[data-testid='stSidebarNav'] a")
    texts = [links.nth(i).inner_text().strip().splitlines()[-1] for i in range(links.count())]
    titles = [title for _, title, _ in PAGES]
    assert sorted(texts) == sorted(titles), texts
