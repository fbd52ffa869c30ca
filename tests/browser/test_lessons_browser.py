"""A lesson in Chromium, as a lecturer presents it: Present on the Lessons page folds the sidebar,
→ and ← walk the steps (the address bar follows, so a link opens the same step). At 1280×720 (a
projector) a step's stage shows its views alone, full width and whole under the lesson's text,
the page's own controls and ←/→ hints gone until asked for; a question veils its views until
Reveal; a training run that goes on into the next step is announced in the bar. (Every bundled
step: tests/browser/test_stage_walk.py.)"""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from attnviz.ui.lecture.position import lessons
from attnviz.ui.lecture.presenter import trains
from attnviz.ui.lecture.question import answer_line
from tests.support.browser import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser

PRESENTER = {"width": 1280, "height": 720}  # a projector in lecture mode
FOLDED = """() => document.querySelector('[data-testid="stSidebar"]')
  .getAttribute('data-collapsed') === 'true'"""


def bar_text(page) -> str:
    return page.locator(".st-key-presenter_bar [data-testid='stProgress']").inner_text()


def at_step(page, number: int) -> None:
    """Wait until the address bar holds step `number` (page switches do not reload)."""
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('step') === '{number}'")


def test_present_then_walk_the_lesson_with_the_keyboard(page, app_url):
    """Present folds the sidebar the Lessons page had open; ← → and Space walk the steps."""
    slug, lesson = next(iter(lessons().items()))
    total = len(lesson.steps)
    open_app_page(page, app_url, "lessons")
    sidebar = page.locator("[data-testid='stSidebar']")
    assert sidebar.get_attribute("data-collapsed") == "false"  # the Lessons page, normal mode
    page.get_by_role("button", name="Present").first.click()
    at_step(page, 1)
    assert f"lesson={slug}" in page.url
    wait_idle(page)
    assert f"step 1 of {total}" in bar_text(page)
    page.wait_for_function(FOLDED, timeout=10_000)  # the projector's first screen: no sidebar
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


def step_named(page_url: str, figure_start: str) -> tuple[str, int]:
    """The first bundled step on `page_url` whose figure's name starts with `figure_start`."""
    return next(
        (slug, n)
        for slug, lesson in lessons().items()
        for n, step in enumerate(lesson.steps, 1)
        if step.page == page_url and step.figure.startswith(figure_start)
    )


STAGED = """(name) => {
  const bar = document.querySelector('.st-key-presenter_bar').getBoundingClientRect();
  const view = document.querySelector('.st-key-view_' + name);
  if (!view || document.documentElement.getAttribute('data-stage') !== 'ready') return null;
  const box = view.getBoundingClientRect();
  return {barBottom: bar.bottom, barRight: bar.right, top: box.top, bottom: box.bottom,
          left: box.left, right: box.right,
          width: box.width, veiled: Boolean(view.closest('[data-stage-veil]'))};
}"""


def staged(page, name: str) -> dict:
    """The stage's box of the view `name`, once the stage shows it whole under the bar (the
    stage measures the room, the server redraws the view to it: a loaded machine takes a while),
    or as it is after 20 s (a rerun still drawing the page may have it out of the page: then it
    waits for it again)."""
    whole = f"""() => {{ const f = ({STAGED})('{name}');
      return f !== null && (f.top >= f.barBottom - 1 || f.left >= f.barRight - 1)
        && f.bottom <= innerHeight + 1 && f; }}"""
    there = f"() => ({STAGED})('{name}')"
    page.wait_for_function(there, timeout=20_000)
    with contextlib.suppress(PlaywrightTimeout):  # the assertion that follows says how it is cut
        return page.wait_for_function(whole, timeout=20_000).json_value()
    return page.wait_for_function(there, timeout=20_000).json_value()  # the box as it is, read
    # in the one poll that found it (a rerun may take the view out between two reads)


LEAST_PLOT_PX = 200  # a view's plot area on a 1280×720 stage (issue 53: curves were 10-160 px)
PLOTS = """(name) => [...document.querySelectorAll(`.st-key-view_${name} .nsewdrag`)]
  .map((d) => Math.round(d.getBoundingClientRect().height)).filter((h) => h > 0)"""  # drawn


def whole_under_the_bar(found: dict) -> bool:
    """Whole on the screen, under the lesson's bar or (a wide, short screen: the bar a column at
    the left, attnviz/ui/static/stage.css) beside it."""
    clear = found["barBottom"] - 1 <= found["top"] or found["barRight"] - 1 <= found["left"]
    return clear and found["bottom"] <= PRESENTER["height"] + 1


def beside_the_bar(found: dict) -> float:
    """The width (px) the stage has for the views: the screen's, less the bar's column."""
    column = found["barRight"] if found["barBottom"] >= PRESENTER["height"] - 1 else 0
    return PRESENTER["width"] - column


def test_presenter_mode_shows_the_steps_view_alone_on_a_stage(page, app_url):
    """Self-attention's last matrix is ~14 figures down its page: on the stage it is the only
    figure, across the screen and whole under the lesson's text; presets, Reset, the settings,
    the hand editor and the page's own Prev / Next are hidden, and shown, with the whole page,
    when the presenter asks for the page's controls; the students' link is the browser's full
    address, with a copy button."""
    slug, number = step_named("self-attention", "softmax(Q Kᵀ/√e) V")
    step = lessons()[slug].steps[number - 1]
    page.set_viewport_size(PRESENTER)
    open_app_page(page, app_url, step.page, f"?lesson={slug}&step={number}")
    found = staged(page, step.views[0])
    assert whole_under_the_bar(found) and found["width"] > 0.85 * beside_the_bar(found), found
    assert page.locator("[data-testid='stPlotlyChart']:visible").count() == 1
    main = page.locator("[data-testid='stMainBlockContainer']")
    hidden = ("[data-testid='stSlider']", "[class*='_preset_']", ".st-key-sa_reset_page")
    for selector in (*hidden, ".st-key-sa_prev", ".st-key-sa_next"):
        assert main.locator(selector).count() > 0, selector
        assert not main.locator(selector).first.is_visible(), f"{selector} is shown"
    assert not page.get_by_text("Edit z and the weights by hand").is_visible()
    assert page.get_by_role("button", name="Next").first.is_visible()
    assert_no_exception(page, "presenter-stage")
    page.get_by_role("button", name="Students' link").click()
    body = page.locator("[data-testid='stPopoverBody']")
    body.locator("[data-testid='stCode']").hover()
    assert body.locator("[data-testid='stCode']").inner_text().startswith(f"{app_url}/{step.page}")
    body.get_by_role("button", name="Copy to clipboard").wait_for(timeout=5_000)  # one click
    page.keyboard.press("Escape")
    page.get_by_text("Page controls").click()
    wait_idle(page)
    prev = main.locator(".st-key-sa_prev")
    assert prev.is_visible() and main.locator("[data-testid='stSlider']").first.is_visible()
    assert "←" not in prev.inner_text() and "→" not in main.locator(".st-key-sa_next").inner_text()
    assert page.locator("[data-testid='stPlotlyChart']:visible").count() > 5  # the whole page


def test_a_question_veils_its_views_until_reveal(page, app_url):
    """The question's views are replaced by the question until Reveal (not blurred: nothing of
    the answer shows); after Reveal they are drawn, with the answer and its explanation whole."""
    slug, number = next(
        (slug, n)
        for slug, lesson in lessons().items()
        for n, step in enumerate(lesson.steps, 1)
        if step.question is not None
    )
    step = lessons()[slug].steps[number - 1]
    page.set_viewport_size(PRESENTER)
    open_app_page(page, app_url, step.page, f"?lesson={slug}&step={number}")
    found = staged(page, step.views[0])
    assert found["veiled"] and whole_under_the_bar(found), found
    assert_no_exception(page, "presenter-question")
    page.get_by_role("button", name="Reveal").click()
    page.get_by_text("Answer:").wait_for(timeout=20_000)
    wait_idle(page)
    found = staged(page, step.views[0])
    assert not found["veiled"] and whole_under_the_bar(found), found
    shown = page.evaluate(SHOWN, ".st-key-lesson_answer [data-testid='stMarkdownContainer']")
    assert shown and shown["inside"], f"the answer is hidden inside the bar: {shown}"
    explain = page.locator(".st-key-lesson_asked [data-testid='stMarkdownContainer']").last
    assert "Answer:" not in explain.inner_text(), "the explanation follows the answer"
    assert page.evaluate(SHOWN, ".st-key-lesson_asked > :last-child p")["inside"], "it is whole"
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


def test_the_answer_line_names_the_prediction_and_shows_text_as_written():
    assert answer_line("cherry", None) == "Answer: **cherry**"
    assert answer_line("cherry", "cherry") == "Answer: **cherry** — you picked it"
    assert answer_line("cherry", "lemon") == "Answer: **cherry** — you picked lemon"
    typed = answer_line("*bold*", "[x](y)")  # tokens a user typed: no emphasis, no link
    assert typed == r"Answer: **\*bold\*** — you picked \[x\]\(y\)"


def test_a_training_run_goes_on_into_the_next_step_and_the_bar_says_so(page, app_url):
    """Start in a training step: the curves appear on the stage, whole; → keeps the run on the
    same page, and the next step's bar names the step it was started in; a step with other
    settings stops that run and shows its own untrained model and Start."""
    slug, number = step_named("train-transformer", "Loss and")
    page.set_viewport_size(PRESENTER)
    open_app_page(page, app_url, "train-transformer", f"?lesson={slug}&step={number}")
    page.get_by_role("button", name="Start").click()
    found = staged(page, "tt_curves")  # the curves: drawn on the stage once the run reports
    assert whole_under_the_bar(found), found
    tall = f"() => {{ const h = ({PLOTS})('tt_curves');"
    tall += f" return h.length > 1 && Math.min(...h) >= {LEAST_PLOT_PX}; }}"
    try:  # the server redraws them to the stage's room: the loss's plot and the metric's
        page.wait_for_function(tall, timeout=30_000)
    except PlaywrightTimeout as err:  # (a second read after the wait could meet a redraw)
        heights = page.evaluate(PLOTS, "tt_curves")
        raise AssertionError(f"the curves' plots while it runs: {heights} px") from err
    page.keyboard.press("ArrowRight")
    at_step(page, number + 1)
    note = page.locator(".st-key-presenter_bar").get_by_text(
        f"The run started in step {number} goes on here"
    )
    note.wait_for(timeout=20_000)
    wait_idle(page)
    assert_no_exception(page, "presenter-training")
    page.keyboard.press("ArrowRight")  # the next step trains without positions: another model
    at_step(page, number + 2)
    # that run is stopped and dropped: no curves of it (nor its status) beside this step's
    # untrained maps, and the bar does not say it goes on
    page.wait_for_function(f"() => ({STAGED})('tt_curves') === null", timeout=20_000)
    wait_idle(page)
    assert page.evaluate(f"() => ({STAGED})('tt_curves')") is None
    bar = page.locator(".st-key-presenter_bar").inner_text()
    assert "goes on here" not in bar and "was trained with" not in bar, bar
    assert page.get_by_role("button", name="Stop").is_disabled()
