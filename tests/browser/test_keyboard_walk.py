"""Keyboard alone (issue 42, WCAG 2.1.1 and 2.4.7), in Chromium: from the top of the page, Tab
reaches soft select's live view, whose handle shows where the focus is and moves with the arrow
keys; in presenter mode, Tab reaches a question's options (arrow keys pick one) and Reveal
(Enter), then → moves on. Nothing is focused by a script or clicked with the mouse."""

from __future__ import annotations

import pytest

from attnviz.ui.lecture.position import lessons
from tests.browser.test_lessons_browser import at_step
from tests.browser.test_live_select import HANDLE, alphas
from tests.support.browser import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser
MOST_TABS = 80  # more than this to reach a control is not a walk a person would do
FOCUSED = """(selector) => {
  let el = document.activeElement;  // into a component's shadow root, where its handle is
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || !el.matches(selector)) return null;
  const style = getComputedStyle(el);
  return {outline: parseFloat(style.outlineWidth) * (style.outlineStyle !== 'none'),
          shadow: style.boxShadow !== 'none'};
}"""


def tab_to(page, selector: str, back: bool = False) -> dict:
    """Press Tab (Shift+Tab: `back`) until the focus is on an element matching `selector`; how
    that element shows its focus."""
    for _ in range(MOST_TABS):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        found = page.evaluate(FOCUSED, selector)
        if found is not None:
            return found
    raise AssertionError(f"{MOST_TABS} presses of Tab never reached {selector}")


def test_soft_selects_live_view_by_keyboard_alone(page, app_url):
    open_app_page(page, app_url, "soft-select")
    ring = tab_to(page, HANDLE)
    assert ring["outline"] >= 2 or ring["shadow"], "the handle shows it has the focus"
    before = alphas(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    assert alphas(page) != before, "the arrow keys move the query"
    assert_no_exception(page, "keyboard-soft-select")


def test_a_lessons_question_by_keyboard_alone(page, app_url):
    slug, number = next(
        (slug, n)
        for slug, lesson in lessons().items()
        for n, step in enumerate(lesson.steps, 1)
        if step.question is not None and len(step.question.options) >= 2
    )
    step = lessons()[slug].steps[number - 1]
    open_app_page(page, app_url, step.page, f"?lesson={slug}&step={number}")
    wait_idle(page)
    tab_to(page, ".st-key-lesson_guess_row input[type='radio']")
    page.keyboard.press("ArrowRight")  # the radio group: the focused option is picked
    page.keyboard.press("ArrowLeft")
    picked = step.question.options[0]
    ring = tab_to(page, ".st-key-lesson_reveal button", back=True)  # Reveal comes first
    assert ring["outline"] >= 2 or ring["shadow"], "Reveal shows it has the focus"
    page.keyboard.press("Enter")
    page.get_by_text("Answer:").wait_for(timeout=20_000)
    answer = page.locator(".st-key-lesson_answer").inner_text()
    assert "you picked" in answer and picked in answer, answer
    page.keyboard.press("ArrowRight")  # Next's shortcut, with the focus wherever it is
    at_step(page, number + 1)
    assert_no_exception(page, "keyboard-lesson")
