"""WCAG 2.1 AA as axe-core checks it (issue 42; the design's "axe-core finds nothing"), in Chromium:
every page of the navigation in lecture mode with high contrast at 1280×720 (a projector: larger
fonts, folded sidebar, the contrast colours) and at 390×844 (a phone), run in the tabs the layout
checker opens anyway (page_probe), and at 1920×1080 in lecture mode after a person's first moves,
with the sidebar unfolded (tests/browser/test_every_page.py); the presenter's stage on a lesson
step with a question, before and after Reveal. axe-core is the npm package pinned in package.json
(`npm ci`; scripts/test.sh installs it), injected into the page. Zero violations of the rules
tagged wcag2a, wcag2aa, wcag21a and wcag21aa. Also: "reduce motion" in the system stops the app's
transitions (static/app.css). The pages come from the registry, so a new page is checked without a
new test."""

from __future__ import annotations

import pytest

from attnviz.lessons.loader import bundled_lessons
from tests.support.axe import AXE, described, violations
from tests.support.browser import open_app_page, wait_drawn, wait_idle
from tests.support.pages import app_pages

pytestmark = pytest.mark.browser
LECTURE = "?lecture=true&contrast=true"
PROJECTOR = {"width": 1280, "height": 720}  # the probes' viewports (tests/browser/conftest.py)
PHONE = {"width": 390, "height": 844}
PAGES = app_pages()


@pytest.fixture
def tab(browser):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` in the repository (scripts/test.sh does)")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context.new_page()
    context.close()


TITLE_TOP_PX = 64  # the title's top at 390×844 in normal mode: clear of the header's buttons


@pytest.mark.parametrize(("path", "title", "url"), PAGES, ids=[u for _, _, u in PAGES])
def test_no_page_breaks_a_wcag_rule(page_probe, path, title, url):
    """axe-core's findings in the pages the layout checker opens anyway (page_probe): the
    projector in lecture mode with high contrast, and the phone. The 1920×1080 projector's are
    checked by tests/browser/test_every_page.py after a person's first moves."""
    projector, phone = page_probe(url, PROJECTOR, LECTURE), page_probe(url, PHONE, "")
    found = {
        "projector 1280×720, lecture mode, high contrast": projector["axe"],
        "phone 390×844": phone["axe"],
    }
    report = described(found)
    assert not report, f"{title}:\n{report}"
    # 1.4.10 reflow: a line break never cuts an inline formula ("A =" | "softmax(QKᵀ/√d_k)")
    assert projector["brokenFormulas"] == phone["brokenFormulas"] == [], title
    # issue 54: no empty band above the title in normal mode (Streamlit's 6rem put it at 96 px)
    assert phone["titleTop"] is not None and phone["titleTop"] <= TITLE_TOP_PX, title
    # issue 54: on a phone Plotly's toolbar (shown after a tap) would cover the figure's title
    assert phone["toolbars"] == 0, title
    if projector["figures"]:  # (on a desktop it stays: the downloads)
        assert projector["toolbars"] >= 1, title


def question_step() -> tuple[str, int, str]:
    """The first bundled lesson step that asks a question with options: (slug, number, page)."""
    return next(
        (slug, number, step.page)
        for slug, lesson in bundled_lessons().items()
        for number, step in enumerate(lesson.steps, 1)
        if step.question is not None and step.question.options
    )


def test_the_presenters_stage_breaks_no_wcag_rule(tab, app_url):
    slug, number, page = question_step()
    open_app_page(tab, app_url, page, f"?lesson={slug}&step={number}")
    ready = f"document.documentElement.getAttribute('data-stage-step') === '{slug}:{number}'"
    tab.wait_for_function(f"() => {ready}", timeout=60_000)
    wait_idle(tab)
    wait_drawn(tab)
    found = {f"{slug} step {number}, asked": violations(tab)}
    tab.get_by_role("button", name="Reveal").click()
    tab.get_by_text("Answer:").wait_for(timeout=20_000)
    wait_idle(tab)
    wait_drawn(tab)
    found[f"{slug} step {number}, revealed"] = violations(tab)
    report = described(found)
    assert not report, report


TRANSITIONS = """() => getComputedStyle(document.querySelector("[data-testid='stSidebar']"))
  .transitionDuration.split(',').map((s) => parseFloat(s))"""


def test_reduced_motion_stops_the_transitions(tab, app_url):
    """The sidebar slides in 0.3 s; with "reduce motion" set in the system it does not slide."""
    open_app_page(tab, app_url, "home")
    assert max(tab.evaluate(TRANSITIONS)) > 0, "the sidebar no longer slides: check another element"
    tab.emulate_media(reduced_motion="reduce")
    assert max(tab.evaluate(TRANSITIONS)) == 0, "the sidebar still slides with reduced motion"
