"""A lesson in Chromium, as a lecturer presents it: Present on the Lessons page, → and ← walk the
steps (the address bar follows, so a link opens the same step), and a question keeps the figures
blurred until Reveal. At 1280×720 (a projector) the bar stays compact and the step's figure is
scrolled just below it and marked, the page's own controls and ←/→ hints are gone, and a training
run that goes on into the next step is announced in the bar."""

from __future__ import annotations

import re

import pytest

from attnviz.ui.lecture.presenter import answer_line, lessons, trains
from tests.support.browser import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser

PRESENTER = {"width": 1280, "height": 720}  # a projector in lecture mode
# the bar's most: 200 of 720 px (28 %) leaves 520 px below it, room for a lecture-mode figure's
# title and plot (they are 350-650 px tall); the old bar took 330-680 px
BAR_MAX = 200


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
    assert not trains(lesson.steps[0])
    page.keyboard.press("Space")
    at_step(page, 2)
    assert_no_exception(page, "lesson-walk")


def blurred(page) -> bool:
    chart = page.locator("[data-testid='stPlotlyChart']").first
    return "blur" in chart.evaluate("el => getComputedStyle(el).filter")


def step_named(page_url: str, figure_start: str) -> tuple[str, int]:
    """The first bundled step on `page_url` whose figure's name starts with `figure_start`."""
    return next(
        (slug, n)
        for slug, lesson in lessons().items()
        for n, step in enumerate(lesson.steps, 1)
        if step.page == page_url and step.figure.startswith(figure_start)
    )


MARKED = """() => {
  const bar = document.querySelector('.st-key-presenter_bar').getBoundingClientRect();
  const mark = document.querySelector('[data-lesson-figure]');
  if (!mark) return null;
  const box = mark.getBoundingClientRect(), style = getComputedStyle(mark);
  const title = mark.querySelector('.gtitle');
  return {barTop: bar.top, barBottom: bar.bottom, top: box.top,
          inPage: box.top + document.querySelector('[data-testid=stMain]').scrollTop,
          title: title ? title.textContent : mark.innerText, outline: style.outlineStyle,
          outlineWidth: parseFloat(style.outlineWidth)};
}"""


def marked_figure(page) -> dict:
    """The marked figure, once it is in the first screen below the bar, and the bar's box."""
    page.wait_for_function(
        """() => { const m = document.querySelector('[data-lesson-figure]');
          const b = document.querySelector('.st-key-presenter_bar');
          if (!m || !b) return false;
          const top = m.getBoundingClientRect().top;
          return top >= b.getBoundingClientRect().bottom - 1 && top < innerHeight - 100; }""",
        timeout=20_000,
    )
    return page.evaluate(MARKED)


def squashed(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def test_presenter_mode_shows_the_steps_figure_under_a_compact_bar_without_the_pages_controls(
    page, app_url
):
    """Self-attention's last matrix is ~14 figures down the page: at 1280×720 it is scrolled
    just below the bar and outlined; presets, Reset, the settings, the hand editor and the
    page's own Prev / Next are hidden, and shown without their ←/→ hints when asked for; the
    students' link is the browser's full address, with a copy button."""
    slug, number = step_named("self-attention", "softmax(Q Kᵀ/√e) V")
    step = lessons()[slug].steps[number - 1]
    page.set_viewport_size(PRESENTER)
    open_app_page(page, app_url, step.page, f"?lesson={slug}&step={number}")
    found = marked_figure(page)
    assert found["barBottom"] - found["barTop"] <= BAR_MAX, found
    assert found["inPage"] > 3 * PRESENTER["height"], "the figure lies far down the page"
    assert found["barBottom"] - 1 <= found["top"] < PRESENTER["height"] - 100, found
    assert squashed(found["title"]).startswith(squashed(step.figure)), found["title"]
    assert found["outline"] == "solid" and found["outlineWidth"] >= 3, "the figure is marked"
    main = page.locator("[data-testid='stMainBlockContainer']")
    hidden = (
        "[data-testid='stSlider']",
        "[class*='_preset_']",
        ".st-key-sa_reset_page",
        ".st-key-sa_prev",
        ".st-key-sa_next",
    )
    for selector in hidden:
        assert main.locator(selector).count() > 0, selector
        assert not main.locator(selector).first.is_visible(), f"{selector} is shown"
    assert not page.get_by_text("Edit z and the weights by hand").is_visible()
    assert page.get_by_role("button", name="Next").first.is_visible()
    assert_no_exception(page, "presenter-far-figure")
    page.get_by_role("button", name="Students' link").click()
    body = page.locator("[data-testid='stPopoverBody']")
    body.locator("[data-testid='stCode']").hover()
    assert body.locator("[data-testid='stCode']").inner_text().startswith(f"{app_url}/{step.page}")
    body.get_by_role("button", name="Copy to clipboard").wait_for(timeout=5_000)  # one click
    page.keyboard.press("Escape")
    page.get_by_text("Show the page's controls").click()
    wait_idle(page)
    prev = main.locator(".st-key-sa_prev")
    assert prev.is_visible() and main.locator("[data-testid='stSlider']").first.is_visible()
    assert "←" not in prev.inner_text() and "→" not in main.locator(".st-key-sa_next").inner_text()


def test_a_question_blurs_the_figures_until_reveal(page, app_url):
    found = [
        (slug, n)
        for slug, lesson in lessons().items()
        for n, step in enumerate(lesson.steps, 1)
        if step.question is not None
    ]
    slug, number = found[0]
    page.set_viewport_size(PRESENTER)
    open_app_page(
        page, app_url, lessons()[slug].steps[number - 1].page, f"?lesson={slug}&step={number}"
    )
    assert blurred(page), "the answer is hidden while the class predicts"
    assert_no_exception(page, "presenter-question")
    page.get_by_role("button", name="Reveal").click()
    page.get_by_text("Answer:").wait_for(timeout=20_000)
    wait_idle(page)
    assert not blurred(page)
    bar = page.locator(".st-key-presenter_bar").bounding_box()
    assert bar["height"] <= BAR_MAX, "the answer and its explanation scroll inside the bar"
    shown = page.evaluate(SHOWN, ".st-key-lesson_answer [data-testid='stMarkdownContainer']")
    assert shown and shown["inside"], f"the answer is hidden inside the bar: {shown}"
    explain = page.locator(".st-key-lesson_asked [data-testid='stMarkdownContainer']").last
    assert "Answer:" not in explain.inner_text(), "the explanation follows the answer"
    assert page.evaluate(SHOWN, ".st-key-lesson_asked > :last-child p")["top_inside"], "its start"
    page.wait_for_function(TITLE_BELOW_BAR, timeout=10_000)  # re-aligned after Reveal if need be
    assert_no_exception(page, "presenter-reveal")


# how much of the first element matching a selector the bar shows: its box inside the bar's box
# and inside every box between them that clips what overflows (the question's scrolling block)
SHOWN = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const box = el.getBoundingClientRect();
  const clips = [];
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (getComputedStyle(p).overflowY !== 'visible') clips.push(p.getBoundingClientRect());
    if (p.classList.contains('st-key-presenter_bar')) {
      clips.push(p.getBoundingClientRect());
      break;
    }
  }
  const within = (y) => clips.every((c) => y >= c.top - 0.5 && y <= c.bottom + 0.5);
  return {top: box.top, bottom: box.bottom, clips: clips.map((c) => [c.top, c.bottom]),
          inside: within(box.top) && within(box.bottom), top_inside: within(box.top + 8)};
}"""

# the marked figure's title (every line of it) lies below the bar
TITLE_BELOW_BAR = """() => {
  const bar = document.querySelector('.st-key-presenter_bar').getBoundingClientRect();
  const title = document.querySelector('[data-lesson-figure] .gtitle');
  return title && title.getBoundingClientRect().top >= bar.bottom;
}"""


def test_the_answer_line_names_the_prediction_and_shows_text_as_written():
    assert answer_line("cherry", None) == "Answer: **cherry**"
    assert answer_line("cherry", "cherry") == "Answer: **cherry** — you picked it"
    assert answer_line("cherry", "lemon") == "Answer: **cherry** — you picked lemon"
    typed = answer_line("*bold*", "[x](y)")  # tokens a user typed: no emphasis, no link
    assert typed == r"Answer: **\*bold\*** — you picked \[x\]\(y\)"


def test_a_training_run_goes_on_into_the_next_step_and_the_bar_says_so(page, app_url):
    """Start in a training step: the curves appear and are brought into view; → keeps the run
    on the same page, and the next step's bar names the step it was started in."""
    slug, number = step_named("train-transformer", "Loss and")
    page.set_viewport_size(PRESENTER)
    open_app_page(page, app_url, "train-transformer", f"?lesson={slug}&step={number}")
    page.get_by_role("button", name="Start").click()
    found = marked_figure(page)  # the curves: drawn once the run reports
    assert squashed(found["title"]).startswith("lossand"), found["title"]
    assert found["barBottom"] - found["barTop"] <= BAR_MAX, found
    page.keyboard.press("ArrowRight")
    at_step(page, number + 1)
    note = page.locator(".st-key-presenter_bar").get_by_text(
        f"The run started in step {number} goes on here"
    )
    note.wait_for(timeout=20_000)
    wait_idle(page)
    assert_no_exception(page, "presenter-training")
    page.get_by_role("button", name="Stop").click()  # the worker is free for the next tests
