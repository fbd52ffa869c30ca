"""Browser-test fixtures: the real app served by `streamlit run`, Chromium from Debian.

`app_url` starts one server for the whole test session (tests/support/server.py); pytest-
playwright's `page` fixture gives a fresh page per test, launched with /usr/bin/chromium
(tests/support/browser.py: browsers cannot be downloaded). Screenshots go to
artifacts/screenshots (ignored by git). Helpers live in tests/support/, not here.
"""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from attnviz.ui.warm_up import MODE_ENV as WARM_ENV
from tests.support import server
from tests.support.axe import violations
from tests.support.browser import (
    IDLE_PROBE,
    SHOTS,
    VIEWPORT,
    assert_no_exception,
    launch_args,
    layout_probe,
    open_app_page,
    pick_page,
    record_requests,
    wait_drawn,
    warm_up,
)
from tests.support.figure_text import read_figure_text
from tests.support.page_moves import MOVES_AT, moves_seen
from tests.support.pages import ROOT
from tests.support.tabs import reset, watched


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    try:
        return {**browser_type_launch_args, **launch_args()}
    except FileNotFoundError as err:
        pytest.fail(str(err))


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": VIEWPORT}


@pytest.fixture(scope="session")
def shared_context(browser, browser_context_args):
    """One browser context for the test session's `page`s: its HTTP cache keeps the app's ~150
    scripts and their compiled code, so a test's first page is not a cold start (about 1 s a
    page less here). A test's page is its own tab, so its Streamlit session is its own."""
    shared = browser.new_context(**browser_context_args)
    shared.add_init_script(IDLE_PROBE)  # pages instrumented for `wait_idle` from the start
    yield shared
    shared.close()


@pytest.fixture(scope="session")
def spare_tabs() -> list:
    """Tabs of the shared context that finished tests left reusable (tests/support/tabs.py)."""
    return []


@pytest.fixture
def context(shared_context, spare_tabs):
    """The shared context, left as a new one would be: no cookie, no stored value, no tab but a
    reset spare one. (Streamlit keeps the sidebar's folding in the origin's storage: a presenter
    step folded it and the next test found no sidebar to click in.)"""
    yield shared_context
    for tab in shared_context.pages:
        if tab not in spare_tabs:
            tab.close()
    for origin in shared_context.storage_state()["origins"]:
        tab = shared_context.new_page()
        tab.goto(f"{origin['origin']}/_stcore/health")  # a document of that origin
        tab.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        tab.close()
    shared_context.clear_cookies()
    shared_context.clear_permissions()


@pytest.fixture
def page(context, spare_tabs):
    """A tab of the shared context as new, at VIEWPORT (pytest-playwright's page, not its
    context): one an earlier test left, reset (tests/support/tabs.py), or a new one."""
    tab = spare_tabs.pop() if spare_tabs else watched(context.new_page())
    yield tab
    if reset(tab, VIEWPORT):
        spare_tabs.append(tab)


@pytest.fixture(scope="session")
def app_server(browser):
    """The one server of the test session (its `pid` and `url`); its log:
    artifacts/streamlit.log."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    # the warm-up a served app does (the test processes' own is light: tests/conftest.py)
    with server.serving(ROOT / "artifacts" / "streamlit.log", env={WARM_ENV: "all"}) as app:
        warm_up(browser, app.url)
        yield app


@pytest.fixture(scope="session")
def app_url(app_server):
    return app_server.url


STEADY_MS = 150
AT_WIDTH = """() => [...document.querySelectorAll('.js-plotly-plot')].every((el) =>
  !el._fullLayout || !el.clientWidth || Math.abs(el._fullLayout.width - el.clientWidth) <= 1)"""
AT_WIDTH_MS = 3_000  # a figure of a fixed width never matches: it is read after this


def settled_figure_text(page, tries: int = 5) -> dict:
    """The figures' text read twice STEADY_MS apart and alike, once every figure is laid out at
    its container's width: on a loaded machine a figure can still be laid out again (a scrollbar
    appears, a column narrows) after the DOM was calm, and until its resize handler runs its
    texts sit where the old width put them (seen on a long page: 4–8 px off)."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(AT_WIDTH, polling=50, timeout=AT_WIDTH_MS)
    text = read_figure_text(page)
    for _ in range(tries):
        page.wait_for_timeout(STEADY_MS)
        again = read_figure_text(page)
        if again == text:
            return text
        wait_drawn(page)
        text = again
    return text


AXE_WIDTHS = (1280, 390)  # the probes axe-core runs on: the projector (lecture mode with high
# contrast, tests/browser/test_layout_states.py's VIEWS) and the phone; 1920×1080's runs after
# the moves there (MOVES_AT, tests/browser/test_every_page.py)


@pytest.fixture(scope="session")
def page_probe(browser, app_url):
    """`page_probe(url, viewport, query)`: the page visited once per (url, viewport width, query),
    its layout probe (tests/support/browser.py), the text inside its figures
    (tests/support/figure_text.py), the requests made, at AXE_WIDTHS axe-core's WCAG violations
    (tests/support/axe.py) and at MOVES_AT what a person's first moves did after all that
    (tests/support/page_moves.py), kept for every check.

    Each viewport and mode has a tab of its own that walks from page to page as a person does
    from the sidebar (`pick_page`: one session, no new document; the same probe as a fresh
    tab's on every page at 1280×720 in both modes and at 390×844, and about 1.5 s of Chromium's
    CPU a page less); its probes' `requests` are all the tab's since it opened. A second look
    opens in a fresh tab."""
    found: dict[tuple[str, int, str], dict] = {}
    contexts: dict[tuple, object] = {}
    tabs: dict[tuple, object] = {}  # each context's tab, reused (tests/support/tabs.py)
    walkers: dict[tuple, tuple] = {}  # (width, height, query) -> (its tab, the requests seen)

    def read(page, url: str, viewport: dict, seen: list) -> dict:
        wait_drawn(page)  # Plotly lays out its titles after the run ends
        assert_no_exception(page, f"probe-{url}-{viewport['width']}")
        out = layout_probe(page) | {"requests": list(seen)}
        out["text"] = settled_figure_text(page)
        if viewport["width"] in AXE_WIDTHS:  # WCAG 2.1 AA on this page as drawn
            out["axe"] = violations(page)
        if viewport["width"] == MOVES_AT:  # then a person's first moves on it
            out["moves"] = moves_seen(page, url)
            out["requests"] = list(seen)
        return out

    def walked(url: str, viewport: dict, query: str) -> dict | None:
        """The probe in the tab that walks this viewport and mode (None before it is open)."""
        walk = (viewport["width"], viewport["height"], query)
        if walk not in walkers:
            return None
        page, seen = walkers.pop(walk)  # a failed probe's tab is not walked on
        pick_page(page, url, query)
        result = read(page, url, viewport, seen)
        walkers[walk] = (page, seen)
        return result

    def fresh(url: str, viewport: dict, query: str, walks: bool) -> dict:
        """The probe in a fresh tab, kept as the walking tab of its viewport and mode if
        `walks`, else reset for the next fresh probe (tests/support/tabs.py)."""
        size = (viewport["width"], viewport["height"])
        place = (*size, query) if walks else size  # a walking tab's storage is its own
        if place not in contexts:
            contexts[place] = browser.new_context(viewport=viewport)
        page = tabs.pop(place, None) or contexts[place].new_page()
        seen, heard = record_requests(page)
        try:
            open_app_page(page, app_url, url, query)
            result = read(page, url, viewport, seen)
        except BaseException:
            walks = False
            raise
        finally:
            if walks:
                walkers[(*size, query)] = (page, seen)
            else:
                page.remove_listener("request", heard)
                if reset(page, viewport):
                    tabs[place] = page
                else:
                    page.close()
        return result

    def probe(url: str, viewport: dict, query: str, again: bool = False) -> dict:
        key = (url, viewport["width"], query)
        if again:  # a second look in a new tab (a loaded machine may lay a figure out late)
            found.pop(key, None)
        if key not in found:
            walks = not again
            found[key] = (walks and walked(url, viewport, query)) or fresh(
                url, viewport, query, walks
            )
        return found[key]

    yield probe
    for context in contexts.values():
        context.close()
