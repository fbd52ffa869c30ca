"""WCAG 2.1 AA as axe-core checks it (issue 42; the design's "axe-core finds nothing"), in
Chromium: every page of the navigation at 1280×800, then in the same tab at 390×844 (a phone: the
page lays itself out again, no reload), then in lecture mode with high contrast (a projector:
larger fonts, folded sidebar, the contrast colours); and the presenter's stage on a lesson step
with a question, before and after Reveal. axe-core is the npm package pinned in package.json
(`npm ci`; scripts/test.sh installs it), injected into the page. Zero violations of the rules
tagged wcag2a, wcag2aa, wcag21a and wcag21aa. Also: "reduce motion" in the system stops the
app's transitions (static/app.css). The pages come from the registry, so a new page is checked
without a new test."""

from __future__ import annotations

import pytest

from attnviz.lessons.loader import bundled_lessons
from tests.support.browser import open_app_page, wait_drawn, wait_idle
from tests.support.pages import ROOT, app_pages

pytestmark = pytest.mark.browser
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
LECTURE = "?lecture=true&contrast=true"
PAGES = app_pages()
RUN_AXE = """(rules) => axe.run(document, {...rules, resultTypes: ['violations']}).then((r) =>
  r.violations.map((v) => ({id: v.id, impact: v.impact, count: v.nodes.length,
    targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ').slice(-160)),
    summary: (v.nodes[0].failureSummary || '').split('\\n').slice(0, 2).join(' ')})))"""


def violations(tab) -> list[dict]:
    """axe's violations of the WCAG 2.1 A/AA rules on the page as it is now: rule id, impact,
    how many elements, the first three elements' selectors and the first one's reason."""
    if not tab.evaluate("!!window.axe"):  # once per document (a page switch keeps it)
        tab.add_script_tag(path=str(AXE))
    return tab.evaluate(RUN_AXE, RULES)


def described(found: dict[str, list[dict]]) -> str:
    """The violations of each state, one line per rule, its first targets under it."""
    lines = []
    for state, items in found.items():
        for v in items:
            lines.append(
                f"{state}: {v['id']} ({v['impact']}, {v['count']} elements): {v['summary']}"
            )
            lines += [f"    {target}" for target in v["targets"]]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def desk(browser):
    """One browser context for the module (its HTTP cache: the app's scripts load once)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` in the repository (scripts/test.sh does)")
    context = browser.new_context(viewport=DESKTOP)
    yield context
    context.close()


@pytest.fixture
def tab(desk):
    tab = desk.new_page()
    yield tab
    tab.close()


@pytest.mark.parametrize(("path", "title", "url"), PAGES, ids=[u for _, _, u in PAGES])
def test_no_page_breaks_a_wcag_rule(tab, app_url, path, title, url):
    found = {}
    open_app_page(tab, app_url, url)
    wait_drawn(tab)
    found["desktop 1280×800"] = violations(tab)
    tab.set_viewport_size(PHONE)  # the same page laid out again: columns stack, sidebar folds
    wait_idle(tab)
    wait_drawn(tab)
    found["phone 390×844"] = violations(tab)
    tab.set_viewport_size(DESKTOP)
    open_app_page(tab, app_url, url, LECTURE)
    wait_drawn(tab)
    found["lecture mode, high contrast"] = violations(tab)
    report = described(found)
    assert not report, f"{title}:\n{report}"


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
