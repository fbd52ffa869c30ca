"""Presenter mode's stage while a lesson step trains, walked over every bundled step that trains
(attnviz.lessons.recordings.lesson_jobs: the table of them) in Chromium at 1280×720, as a lecturer
runs it (issue 53, item 6): the step opened by its link, Start pressed (presenter mode replays the
step's recorded run at the pace chosen beside the buttons, 20 s by default), and the stage looked
at 0.5 s (the run's first poll), 1 s and 5 s into the run and at its end. Each time: the step's
views all on the stage, whole under the lesson's text, every chart's plot area 200 px tall or
more and every picture or map 120 px (tests/browser/test_stage_walk.py's checks), none greyed
out, and from step 50 on none degenerate (every curve of a view one value only, a map of one
colour). A question whose answer is the trained model (`trained = true`) is not started: Reveal
must show the recorded run at its end; another question is revealed first, then the run starts.
About 15 minutes alone (-m walk); screenshots of what failed in artifacts/screenshots."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import pytest

from attnviz.lessons.loader import bundled_lessons
from attnviz.lessons.recordings import lesson_jobs
from tests.browser.test_stage_walk import MEASURE, PROJECTOR, look, problems
from tests.support.browser import SHOTS, instrument, page_url

pytestmark = [pytest.mark.browser, pytest.mark.walk]
LESSONS = bundled_lessons()
TRAINS = sorted(
    {(slug, number) for _, _, steps in lesson_jobs().values() for slug, number in steps}
)
MARKS = (0.5, 1.0, 5.0)  # s after Start
FORMED = 50  # steps: from here on a curve has more than one value and a map more than one colour
END_S = 60  # the longest wait for a 20 s replay to end
LOOK_AGAIN_MS = 400
TIMELINE = "_timeline"  # a run's timeline slider: drawn once it is paused or over, so a
# step that names it (L4 s3, "drag the timeline") is looked for at the end, not while it runs
STATUS = "[class*='_status'] [data-testid='stMarkdownContainer']"
ENDED = re.compile(r"\b(done|stopped early|stopped|diverged|error) — step")  # RunStatus
DRAWN = """(names) => names.map((n) => {
  const view = document.querySelector('.st-key-view_' + CSS.escape(n));
  if (!view) return null;
  let opacity = 1;  // as seen: the view's own opacity times its containers' (a stale element)
  for (let el = view; el; el = el.parentElement)
    opacity *= parseFloat(getComputedStyle(el).opacity);
  const distinct = (values) => new Set(values.flat(3).filter((v) => Number.isFinite(v))).size;
  const plots = [...view.querySelectorAll('.js-plotly-plot')]
    .filter((p) => p.getBoundingClientRect().height > 0 && p.checkVisibility());
  const traces = plots.flatMap((p) => p._fullData || []);
  const curves = traces.filter((t) => t.type.startsWith('scatter') && t.y && t.y.length > 1)
    .map((t) => distinct(Array.from(t.y)));
  const maps = traces.filter((t) => t.type === 'heatmap' && t.z)
    .map((t) => distinct(Array.from(t.z, (row) => Array.from(row))));
  return {name: n, opacity, curves, maps, figures: plots.length};
})"""


def status(tab) -> tuple[str, int, int]:
    """The run's status line: (its words, the step, the run's steps); ("", 0, 0) before a run."""
    found = tab.locator(STATUS)
    text = found.first.inner_text() if found.count() else ""
    step = re.search(r"step ([\d,]+) of ([\d,]+)", text)
    numbers = [int(g.replace(",", "")) for g in step.groups()] if step else [0, 0]
    return text, numbers[0], numbers[1]


def drawn_problems(drawn: list, step: int) -> list[str]:
    """A view greyed out, or (from step FORMED on) a curve of one value or a map of one colour."""
    out = []
    for view in (v for v in drawn if v is not None):
        if view["opacity"] < 0.99:
            out.append(f"{view['name']} greyed out (opacity {view['opacity']:.2f})")
        if step < FORMED:
            continue
        if view["curves"] and max(view["curves"]) < 2:
            out.append(f"{view['name']}: every curve is flat")
        out += [f"{view['name']}: a map of one colour" for n in view["maps"] if n < 2]
    return out


def seen_now(tab, step, when: str, running: bool = False) -> list[str]:
    """What is wrong on the stage now (`when`: for the message), with a screenshot if anything;
    looked at twice LOOK_AGAIN_MS apart, so that a view caught in the middle of a redraw (a map
    0 px tall for a frame) is not reported: what a person sees stays for longer."""
    views = list(step.views)
    for _ in range(2):
        _, at, total = status(tab)
        controls = [c for c in step.controls if not (running and c.endswith(TIMELINE))]
        seen = tab.evaluate(MEASURE, [views, controls])
        seen["live"] = False  # the run has started: every view of the step is drawn by now
        found = problems(seen, step)
        found += drawn_problems(tab.evaluate(DRAWN, views), at)
        if not found:
            return []
        tab.wait_for_timeout(LOOK_AGAIN_MS)
    if found:
        tab.screenshot(path=str(SHOTS / f"run-{when.replace(' ', '_')}.png"))
    return [f"{when} (step {at} of {total}): {p}" for p in found]


def run_on_stage(tab, step, name: str) -> list[str]:
    """Start, then the stage at each of MARKS and at the run's end."""
    tab.locator("[class*='_start'] button").first.click()
    start, found = time.monotonic(), []
    for mark in MARKS:
        tab.wait_for_timeout(max(0.0, mark - (time.monotonic() - start)) * 1000)
        found += seen_now(tab, step, f"{name} {mark:g} s", running=True)
    while time.monotonic() - start < END_S:
        text, _, _ = status(tab)
        if ENDED.search(text):  # at its last step, or earlier for a reason it states
            break
        tab.wait_for_timeout(500)
    else:
        return [*found, f"{name}: the run did not end within {END_S} s: {status(tab)[0]!r}"]
    tab.wait_for_timeout(1000)  # the last poll drawn
    return found + seen_now(tab, step, f"{name} end")


def reveal(tab, step):
    """Reveal pressed: the step as the stage now shows it (answered: nothing veiled)."""
    tab.locator(".st-key-lesson_reveal button").click()
    tab.locator(".st-key-lesson_answer").wait_for(timeout=30_000)
    tab.wait_for_timeout(2000)  # the stage fits the views it unveiled
    return replace(step, question=None)


def revealed(tab, step, name: str) -> list[str]:
    """Reveal of a question about the trained model: the recorded run at its end."""
    step = reveal(tab, step)
    text, at, total = status(tab)
    found = [] if total and at == total else [f"{name}: Reveal shows {text!r}, not the trained run"]
    return found + seen_now(tab, step, f"{name} revealed")


CASES = [pytest.param(slug, number, id=f"{slug[:2]}-{number}") for slug, number in TRAINS]


@pytest.mark.parametrize(("slug", "number"), CASES)
def test_a_training_step_runs_on_the_stage_from_the_first_second_to_the_end(
    browser, app_url, slug, number
):
    step = LESSONS[slug].steps[number - 1]
    tab = browser.new_context(viewport=PROJECTOR).new_page()
    instrument(tab)
    try:
        tab.goto(f"{app_url}/{page_url(step.page)}?lesson={slug}&step={number}")
        found = look(tab, slug, number, step)  # ready, as the stage walk opens it
        name = f"L{slug[:2]} s{number}"
        if step.question is not None and step.question.trained:
            found += revealed(tab, step, name)
        else:  # a question about something else is answered first, then the run goes
            if step.question is not None:
                step = reveal(tab, step)
            found += run_on_stage(tab, step, name)
    finally:
        tab.context.close()
    assert found == []
