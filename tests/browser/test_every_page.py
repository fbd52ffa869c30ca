"""Every page of the navigation in headless Chromium: open, interact, no exception, no request to
any host but the local server, and no WCAG 2.1 AA violation that axe-core finds after the moves.
The page is the one `page_probe` opens at 1920×1080 in lecture mode with high contrast
(tests/browser/conftest.py), and the moves are made in its tab after the layout checks read it
(tests/support/page_moves.py): the first main-area slider three steps (or another option in the
first select box), then the page's main widget once, which must change a figure's data; axe-core
then runs with the sidebar unfolded (the page's settings). axe-core on the projector at 1280×720
and on the phone: tests/browser/test_accessibility.py."""

from __future__ import annotations

import pytest

from tests.support.axe import described
from tests.support.browser import foreign, open_app_page
from tests.support.page_moves import MOVES_AT, NAMES_CUT, NO_FIGURE
from tests.support.pages import app_pages

pytestmark = pytest.mark.browser
PAGES = app_pages()
LECTURE = "?lecture=true&contrast=true"
DESKTOP = {"width": MOVES_AT, "height": 1080}


@pytest.mark.parametrize(("path", "title", "url"), PAGES, ids=[u for _, _, u in PAGES])
def test_page_opens_and_survives_interaction_asking_only_the_local_server(
    page_probe, path, title, url
):
    probed = page_probe(url, DESKTOP, LECTURE)  # opened with no exception box: the probe checks
    moves = probed["moves"]
    assert moves["headings"] >= 1, f"{title}: no title"
    wanted = ("slider", "selectbox", "none") if url == "home" else ("slider", "selectbox")
    assert moves["nudged"] in wanted, f"{title}: no slider or selectbox to change: {moves}"
    if url not in NO_FIGURE:  # the page's main widget (the benchmark's) redraws a figure
        assert moves["main widget changed"], f"{title}: its main widget changed no figure"
    assert moves["exception"] is None, moves["exception"]
    assert moves["sidebar open"], "the sidebar did not unfold"
    assert moves["names cut"] == [], f"names cut in the lecture sidebar: {moves['names cut']}"
    report = described({"1920×1080 lecture mode, moved, sidebar open": moves["axe"]})
    assert not report, f"{title} breaks WCAG 2.1 AA rules (axe-core):\n{report}"
    seen = probed["requests"]
    assert seen, "no request was recorded"
    assert not foreign(seen), f"{title} asked other hosts: {sorted(set(foreign(seen)))}"


FIRST_SCREEN = {"width": 1280, "height": 720}


def test_sidebar_lists_each_page_once_and_home_starts_a_lesson_alone(page, app_url):
    """The sidebar, each page's name whole; Home's three ways in whole in the first screen at
    1280×720; its first lesson played alone, the step's progress in sight (not under
    Streamlit's header)."""
    page.set_viewport_size(FIRST_SCREEN)
    open_app_page(page, app_url, "home")
    links = page.locator("[data-testid='stSidebarNav'] a")
    texts = [links.nth(i).inner_text().strip().splitlines()[-1] for i in range(links.count())]
    titles = [title for _, title, _ in PAGES]
    assert sorted(texts) == sorted(titles), texts
    cut = page.evaluate(NAMES_CUT)  # issue 54: "Captioning: words that look at t…"
    assert cut == [], f"page names cut in the sidebar: {cut}"
    main = page.locator("[data-testid='stMain']")
    ways = [
        main.get_by_role("link", name="Start the first lesson"),
        main.get_by_role("link", name="Lessons").first,
        # the three lines of Python (inline code, not a code block: attnviz.ui.common.home)
        main.locator("[data-testid='stMarkdown']", has=page.locator("code", has_text="import")),
    ]
    for way in ways:
        box = way.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= FIRST_SCREEN["height"], box
    ways[0].click()
    page.wait_for_function("() => location.search.includes('alone=true')", timeout=30_000)
    bar = page.locator(".st-key-lesson_row [data-testid='stProgress']")
    bar.get_by_text("step 1 of").wait_for(timeout=30_000)
    top = bar.bounding_box()["y"]
    header = page.locator("[data-testid='stHeader']").bounding_box()
    assert top >= header["y"] + header["height"] - 1, (top, header)


def test_a_deep_link_asks_nothing_that_is_not_there(page, app_url):
    """A page opened at its own address asks the server only what is there: no 4xx, no console
    error (Streamlit's frontend guessed its base URL from the page's path before: 404s for
    /<page>/_stcore/health and /<page>/_stcore/host-config on every deep link; the index page now
    names it, attnviz/ui/index_page.py)."""
    failed, errors = [], []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else 0)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else 0)
    for url, query, title in (
        ("soft-select", "?ss_temp=0.5", "Soft select"),
        ("home", "", "AttnViz"),
        ("real-block", LECTURE, "Inside one block"),
    ):
        open_app_page(page, app_url, url, query)  # its page, not the home page nor "not found"
        assert page.locator("h1").first.inner_text().startswith(title), url
    assert failed == [] and errors == [], (failed, errors)
