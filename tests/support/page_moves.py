"""A person's first moves on a page, observed without asserting (tests/browser/test_every_page.py
asserts on what they did): the first main-area slider moved three steps, or another option picked
in the first select box; then the page's main widget (benchmarks.browser's) moved once, and whether
a figure's data changed; any exception box after them; axe-core's WCAG findings after them, with
the sidebar unfolded (the page's settings). `page_probe` (tests/browser/conftest.py) runs them in
the tab it opened anyway, at MOVES_AT, so that checking them costs no page load of its own; a
sidebar the moves unfolded is folded again, as the next page of the probe's walk expects it."""

from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from benchmarks.browser import UNFOLD, main_widget, move_once
from tests.support.axe import violations
from tests.support.browser import SHOTS, wait_drawn, wait_idle

MOVES_AT = 1920  # the viewport width (lecture mode, tests/browser/conftest.py) of the moves
NO_FIGURE = {"home", "lessons"}  # menus: their widgets change what is listed, not a figure
FIGURE_DATA = """() => [...document.querySelectorAll('.js-plotly-plot')].map((el) =>
  JSON.stringify((el.data || []).map((t) => [t.x, t.y, t.z, t.text, t.customdata]))).join('|')"""


def nudge_first_widget(page) -> str:
    """Move the first main-area slider three steps, or pick another option in the first
    selectbox: "slider", "selectbox", "none" (neither), or what went wrong."""
    main = page.locator("[data-testid='stMain']")
    slider = main.locator("[data-testid='stSlider'] input[type='range']:not([disabled])")
    if slider.count():
        before = slider.first.get_attribute("aria-valuetext")
        for key in ("ArrowRight", "ArrowLeft"):  # left when it sat at its maximum
            slider.first.focus()
            for _ in range(3):
                page.keyboard.press(key)
            wait_idle(page)
            if slider.first.get_attribute("aria-valuetext") != before:
                return "slider"
        return "the slider did not move"
    select = main.locator("[data-testid='stSelectbox']")
    if not select.count():
        return "none"
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
    else:
        return "the select box did not open"
    options.nth(min(1, options.count() - 1)).click()
    wait_idle(page)
    return "selectbox"


NAMES_CUT = """() => {  // a page or section name wider than its box (Streamlit ends it in "…")
  const bar = document.querySelector("[data-testid='stSidebar']").getBoundingClientRect();
  return [...document.querySelectorAll(
    "[data-testid='stSidebarNav'] a [data-testid='stMarkdownContainer'], "
    + "[data-testid='stNavSectionHeader'] [data-testid='stMarkdownContainer']")]
    .filter((el) => el.scrollWidth > el.clientWidth + 1
      || el.getBoundingClientRect().right > bar.right)
    .map((el) => el.innerText);
}"""


def exception_text(page) -> str | None:
    errors = page.locator("[data-testid='stException']")
    return errors.first.inner_text()[:2000] if errors.count() else None


def moves_seen(page, url: str) -> dict:
    """{"headings", "nudged", "main widget changed" (None on a menu or a page without one),
    "exception", "sidebar open", "names cut" (in the sidebar), "axe"} after the moves on the
    page open in `page`."""
    seen: dict = {"headings": page.locator("h1").count(), "nudged": nudge_first_widget(page)}
    seen["main widget changed"] = None
    kind, widget = main_widget(page, url) if url not in NO_FIGURE else (None, None)
    if kind is not None:
        if not widget.is_visible():  # on another tab, or folded: shown as a person would
            widget.evaluate(UNFOLD)
            widget.wait_for(state="visible", timeout=10_000)
        drawn = page.evaluate(FIGURE_DATA)
        at_end = kind == "slider" and widget.get_attribute("value") == widget.get_attribute("max")
        move_once(page, kind, widget, forward=not at_end)
        wait_idle(page)
        seen["main widget changed"] = page.evaluate(FIGURE_DATA) != drawn
    seen["exception"] = exception_text(page)
    folded = page.locator("[data-testid='stSidebar'][data-collapsed='true']").count() > 0
    seen["sidebar open"] = open_sidebar(page)
    wait_drawn(page)  # icons and fonts load after the run
    seen["names cut"] = page.evaluate(NAMES_CUT)
    page.screenshot(path=str(SHOTS / f"{url}-after-moves.png"))
    seen["axe"] = violations(page)
    # Streamlit keeps the sidebar's folding in the origin's storage: left unfolded, every page
    # opened after this one in the probe's context would start with it open
    page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    if folded:  # as it was: the tab goes on to the next page (the probe's walk)
        page.locator("[data-testid='stSidebarCollapseButton'] button").first.click()
        folding = page.locator("[data-testid='stSidebar'][data-collapsed='true']")
        folding.wait_for(state="attached", timeout=10_000)  # folded is hidden: not "visible"
    return seen


def open_sidebar(page) -> bool:
    """Unfold the sidebar where it is folded (lecture mode folds it), so that axe-core reads the
    page's settings too; whether it is open then."""
    side = page.locator("[data-testid='stSidebar']")
    if side.get_attribute("data-collapsed") == "true":
        page.locator("[data-testid='stExpandSidebarButton']").first.click()
        page.locator("[data-testid='stSidebar'][data-collapsed='false']").wait_for(timeout=10_000)
        page.wait_for_timeout(400)  # its 0.3 s slide: axe-core reads colours where they end up
    return side.get_attribute("data-collapsed") == "false"
