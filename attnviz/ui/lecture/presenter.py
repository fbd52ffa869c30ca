"""Presenter mode: a lesson (attnviz.lessons, files in lessons/) played on top of the pages.

The URL carries the position, `?lesson=<slug>&step=<n>` (n from 1), so a link opens the same
step. app.py calls, on every rerun:

1. `enter_step(page)` before the sidebar is drawn: the first time this session sees a
   (lesson, step), it writes the step's complete parameter state into the page's widgets
   (through the page's parameter table, as a preset does) and turns lecture mode on;
2. `presenter_bar(page)` above the page, a compact bar that stays at the top (under 200
   px at 1280×720): one row with Previous / Next (keys ← and →; Space too, except on training
   pages where Space starts training), "step 4 of 12" with a progress bar, "Page controls"
   (off: every setting, preset, Reset and download of the page is hidden) and the students'
   link (absolute, with a copy button: attnviz.lessons.links); below it what to
   point at and the narration, in a short block that scrolls, beside the question; a note
   when a training run from an earlier step goes on here. The step's figure (`figure` in the
   file) is scrolled just below the bar and marked (attnviz.ui.lecture.focus). It returns a
   place for
3. `ask(place, page)` after the page has run: the step's question (predict, then reveal:
   the page's figures are blurred until Reveal, which replaces the options by one line, the
   answer and the prediction picked, above the explanation, all in sight in the bar; a
   computed answer and its options come from what the page published in this run,
   attnviz.ui.lecture.answers).

Moving to another step (Present, Previous, Next: on_click callbacks, `request_step`) is done by
`follow_request()` at the top of the next rerun: it switches to that step's page with the new
position in the URL.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.lessons.model import Lesson, Step
from attnviz.topics import registry
from attnviz.topics.registry import Page
from attnviz.topics.scene import SceneInputError
from attnviz.topics.settings import TABLE as SIDEBAR
from attnviz.ui.common.here import staged
from attnviz.ui.common.sidebar import css
from attnviz.ui.common.widgets import apply
from attnviz.ui.lecture.answers import forget
from attnviz.ui.lecture.focus import point_at_figure
from attnviz.ui.lecture.links import link_base, show_link
from attnviz.ui.lecture.position import APPLIED, alone, move, position
from attnviz.ui.lecture.question import predict_then_reveal, revealed
from attnviz.ui.lecture.stage import controls_sheet, stage

RUNS_SEEN = "_lesson_runs_seen"  # id(job) -> the (slug, step) whose bar first saw the run
ECHOES = "_lesson_echoes"  # key -> the value it had before the step wrote its own
REQUESTED = "_lesson_goto"  # (slug, step, alone) a button asked for; followed at the next rerun


def trains(step: Step) -> bool:
    """Whether the step's page is a training page: there Space starts training (only → moves
    on), and a run goes on across the lesson's steps on the page."""
    scene = registry.page(step.page).scene
    return scene is not None and scene.trains


def enter_step(here: Page) -> None:
    """Write the step's parameters into its page's widgets, once per (lesson, step); while the
    page's controls are hidden, again any that came back at their last value (`_echoes`)."""
    found = position()
    if found is None:
        return
    lesson, number = found
    step = lesson.steps[number - 1]
    table = step.table()
    if step.page != here.url:
        return
    if st.session_state.get(APPLIED) == (lesson.slug, number):
        echoes = _echoes() if table is not None and staged() else []  # controls hidden:
        if echoes:  # no one moved them
            state = step.state()
            apply(table, {key: state[key] for key in echoes})
        return
    if table is not None:
        state = step.state()
        st.session_state[ECHOES] = {
            key: st.session_state[key]
            for key in state
            if key in st.session_state and st.session_state[key] != state[key]
        }
        apply(table, state)
    if not alone():  # a presenter's hall; a student alone keeps the page's own sizes
        apply(SIDEBAR, {"lecture": True})
    st.session_state[APPLIED] = (lesson.slug, number)


def _echoes() -> list[str]:
    """The widgets read back at the value they had before this step wrote its own: the browser
    sent them from before it had the step's (its widget state lags a rerun behind, L1 s11's page
    drew s10's `Q, K, V` and its stage stayed empty)."""
    before = st.session_state.get(ECHOES) or {}
    return [key for key, value in before.items() if st.session_state.get(key) == value]


def request_step(slug: str, number: int, played_alone: bool | None = None) -> None:
    """on_click: open step `number` of lesson `slug` at the next rerun, played alone or
    presented (None: as the lesson is played now)."""
    st.session_state[REQUESTED] = (slug, number, alone() if played_alone is None else played_alone)


def follow_request(here: Page) -> None:
    """Switch to the requested step's page, its position in the URL (before anything draws)."""
    move(here, *st.session_state.pop(REQUESTED))


def presenter_bar(here: Page) -> Any:
    """The lesson's bar above the page (nothing when the URL names no lesson): one row of
    controls, then what to point at and the narration (a short block that scrolls) beside the
    question. It stays at the top while the page scrolls to the step's figure. Returns the
    place for the step's question (None when there is none)."""
    found = position()
    if found is None:
        return None
    lesson, number = found
    step = lesson.steps[number - 1]
    st.html(css("presenter"))  # static CSS, never user text
    if alone():  # the header takes no room, as in lecture mode
        st.html(css("alone"))
    forget()
    with st.container(border=True, key="presenter_bar"):
        if step.page != here.url:
            st.info(f"“{lesson.title}” continues on another page.")
            st.button(
                "Back to the lesson",
                key="lesson_back",
                on_click=request_step,
                args=(lesson.slug, number),
            )
            return None
        _navigation_row(lesson, number, step, here)
        place = None
        if step.question is None:
            told = st.container(key="lesson_told")
        else:
            left, right = st.columns([3, 2], gap="small")
            told, place = left.container(key="lesson_told"), right.container(key="lesson_asked")
        with told:
            _narration(step, keep_or_drop_run(lesson, number, step))
    where = f"{lesson.slug}:{number}"
    # the step's views alone, sized to the screen (off with the page's controls; a new step
    # folds the sidebar); a step that names no views gets its figure pointed at instead
    shown = st.session_state.get("lesson_controls", False)
    stage(step, where, on=not shown, revealed=bool(st.session_state.get(revealed(where))))
    if not step.views:
        point_at_figure(step.figure, where)
    return place


def keep_or_drop_run(lesson: Lesson, number: int, step: Step) -> int | None:
    """Keep the page's training run if this step has its settings, and return the earlier step
    of this lesson it was started in (a run goes on across the steps on its page while their
    settings are the same); None when there is none. A run trained with other settings is
    stopped and dropped: its status line and curves beside this
    step's untrained maps told two stories at once (the lecturer's walk, issue 53), so the step
    shows its own model and Start, or on Reveal its recorded run. A run is known by the step
    whose bar first saw it."""
    if not trains(step):
        return None
    from attnviz.ui.training.changes import page_values  # lazily: the panel imports torch
    from attnviz.ui.training.panel import current_job, drop_run

    scene = registry.scene(step.page)
    job = current_job(scene)
    if job is None or (step.views and set(step.views) <= set(scene.apart_views)):
        return None  # (a step showing only what a run does not change has nothing to train)
    seen = st.session_state.setdefault(RUNS_SEEN, {})
    slug, origin = seen.setdefault(id(job), (lesson.slug, number))
    try:  # the step's settings, as its page now holds them
        same = scene.config(scene.values(page_values(scene))).spec == job.spec
    except SceneInputError:
        same = False
    if not same:
        drop_run(scene)
        return None
    return None if slug != lesson.slug or origin == number else origin


def ask(place: Any, here: Page) -> None:
    """The step's question in `place`, once the page has run (see the module docstring)."""
    found = position()
    if place is None or found is None:
        return
    lesson, number = found
    with place:
        predict_then_reveal(lesson, number, lesson.steps[number - 1])


def _narration(step: Step, carried: int | None) -> None:
    if step.point_at:  # said to a presenter; a student alone is told where to look
        st.markdown(f"**{'Look at' if alone() else 'Point at'}:** {step.point_at}")
    if carried is not None:
        st.markdown(
            f":material/sync: **The run started in step {carried} goes on here** "
            "(Start trains a new one with this step's settings)."
        )
    st.markdown(step.narration)


def _navigation_row(lesson: Lesson, number: int, step: Step, here: Page) -> None:
    """One line: Previous (←), the progress with the step's title, the page's controls
    (hidden unless asked for), the students' link, Next (→)."""
    total = len(lesson.steps)
    row = st.container(horizontal=True, vertical_alignment="center", key="lesson_row")
    row.button(
        "Previous",
        key="lesson_prev",
        disabled=number == 1,
        shortcut="Left",
        on_click=request_step,
        args=(lesson.slug, number - 1),
        wrap=False,
    )
    row.progress(
        number / total, text=f"step {number} of {total}: **{step.title}** · {lesson.title}"
    )
    if not row.toggle("Page controls", key="lesson_controls"):
        st.html(controls_sheet(step.controls))  # static CSS and the step's plain keys
    if not alone():  # a room's tools
        _room_tools(row, lesson, number, step, here)
    row.button(
        "Next",
        key="lesson_next",
        type="primary",
        disabled=number == total,
        shortcut="Right",
        on_click=request_step,
        args=(lesson.slug, number + 1),
        wrap=False,
    )
    if not trains(step) and number < total:  # Space also moves on (hidden twin)
        row.button(
            "Next step",
            key="lesson_next_space",
            shortcut="Space",
            on_click=request_step,
            args=(lesson.slug, number + 1),
        )


def _room_tools(row: Any, lesson: Lesson, number: int, step: Step, here: Page) -> None:
    """The students' link (a popover) and the live classroom's room control."""
    with row.popover("Students' link", icon=":material/link:"):
        st.caption("This step's page and settings, without the presenter's bar:")
        base, note = link_base(here)
        show_link(step, base)
        if note:
            st.caption(note)
    from attnviz.ui.lecture.room import room_control  # (it imports this module)

    room_control(row, lesson, number, here)  # live classroom: "Open a room", its code, QR
