"""A lesson in Chromium, as a lecturer presents it: Present on the Lessons page, → and ← walk the
steps (the address bar follows, so a link opens the same step), and a question keeps the figures
blurred until Reveal."""

from __future__ import annotations

import pytest

from attnviz.ui.lesson_player import SPACE_TAKEN, lessons
from tests.support.browser import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser


def bar_text(page) -> str:
    return page.locator(".st-key-presenter_bar [data-testid='stProgress']").inner_text()


def at_step(page, number: int) -> None:
    """Wait until the address bar holds step `number` (page switches do not reload)."""
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('step') === '{number}'")


def test_present_then_walk_the_lesson_with_the_keyboard(page, app_url):
    slug, lesson = next(iter(lessons().items()))
    total = len(lesson.steps)
    open_app_page(page, app_url, "lessons")
    page.get_by_role("button", name="Present").first.click()
    at_step(page, 1)
    assert f"lesson={slug}" in page.url
    wait_idle(page)
    assert f"step 1 of {total}" in bar_text(page)
    page.keyboard.press("ArrowRight")
    at_step(page, 2)
    wait_idle(page)
    assert f"step 2 of {total}" in bar_text(page)
    assert lesson.steps[1].title in bar_text(page)
    page.keyboard.press("ArrowLeft")
    at_step(page, 1)
    wait_idle(page)
    assert f"step 1 of {total}" in bar_text(page)
    assert lesson.steps[0].page not in SPACE_TAKEN
    page.keyboard.press("Space")
    at_step(page, 2)
    assert_no_exception(page, "lesson-walk")


def blurred(page) -> bool:
    chart = page.locator("[data-testid='stPlotlyChart']").first
    return "blur" in chart.evaluate("el => getComputedStyle(el).filter")


def test_the_pages_controls_are_hidden_unless_asked_for(page, app_url):
    slug = next(iter(lessons()))
    open_app_page(page, app_url, lessons()[slug].steps[0].page, f"?lesson={slug}&step=1")
    sliders = page.locator("[data-testid='stMainBlockContainer'] [data-testid='stSlider']")
    assert sliders.count() > 0 and not sliders.first.is_visible(), "settings hidden"
    assert page.get_by_role("button", name="Next").is_visible()
    page.get_by_text("Show the page's controls").click()
    wait_idle(page)
    assert sliders.first.is_visible()
    assert_no_exception(page, "lesson-controls")


def test_a_question_blurs_the_figures_until_reveal(page, app_url):
    found = [(slug, n) for slug, lesson in lessons().items()
             for n, step in enumerate(lesson.steps, 1) if step.question is not None]  # fmt: skip
    slug, number = found[0]
    open_app_page(page, app_url, lessons()[slug].steps[number - 1].page,
                  f"?lesson={slug}&step={number}")  # fmt: skip
    assert blurred(page), "the answer is hidden while the class predicts"
    page.get_by_role("button", name="Reveal").click()
    page.get_by_text("Answer:").wait_for(timeout=20_000)
    wait_idle(page)
    assert not blurred(page)
    assert_no_exception(page, "lesson-reveal")
