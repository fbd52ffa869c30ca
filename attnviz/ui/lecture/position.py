"""Where presenter mode is: the lesson and step the URL names (`?lesson=<slug>&step=<n>`, and
`&alone=true` when a student plays the lesson alone), the move to another step, and the guard
that keeps a move from being undone by a stale rerun.

The browser sends every rerun with the address it shows, and a newer rerun replaces a pending
one, address included (Streamlit coalesces them). So a rerun the browser sent before it saw a
move (a training page's live curves, the stage reporting its room) arrives with the address of
the step just left, and would draw that step again: the lecturer presses → and the hall sees
the next step flash and vanish. `move()` remembers the place left and the place moved to;
`settle()`, at the top of every run, sends a run that carries the place just left back to the
place moved to, until the browser has shown the new place in a rerun of its own. Any other
address is a person going elsewhere (a link, Back, Exit lecture mode), and is followed.
"""

from __future__ import annotations

from functools import cache

import streamlit as st

from attnviz.lessons.loader import bundled_lessons
from attnviz.lessons.model import Lesson
from attnviz.topics import registry
from attnviz.topics.registry import Page

LESSON, STEP, ALONE = "lesson", "step", "alone"
APPLIED = "_lesson_applied"  # (slug, step) whose state was last written into the widgets
MOVED_TO = "_lesson_moved_to"  # the place (a `Place`) the last move went to
LEFT = "_lesson_left"  # the place that move left, until the browser shows the new one
FRESH = "_lesson_fresh"  # the run the move started is still to come (it does not confirm)

Place = tuple[str, str | None, str | None, str | None]  # (page url, lesson slug, step, alone)
# as the URL says


@cache
def lessons() -> dict[str, Lesson]:
    """The bundled lessons, read once per server."""
    return bundled_lessons()


def position() -> tuple[Lesson, int] | None:
    """The lesson and step (1-based, clamped) the URL names; None when it names none."""
    lesson = lessons().get(str(st.query_params.get(LESSON, "")))
    if lesson is None:
        return None
    try:
        number = int(st.query_params.get(STEP, "1"))
    except ValueError:
        number = 1
    return lesson, min(max(number, 1), len(lesson.steps))


def alone() -> bool:
    """Whether the URL's lesson is played alone (self-paced: no room, no lecture mode, each
    answer checked), not presented to a room."""
    return str(st.query_params.get(ALONE, "")).lower() == "true"


def page_path(url: str) -> str:
    """The page script of the page at `url` (a lesson step names its page by url)."""
    return registry.page(url).script


def place(here: Page) -> Place:
    """The place this run draws: its page and the lesson, step and way of playing in its URL."""
    return here.url, st.query_params.get(LESSON), st.query_params.get(STEP), _alone_text()


def _alone_text() -> str | None:
    return "true" if alone() else None


def move(here: Page, slug: str, number: int, played_alone: bool = False) -> None:
    """Switch to step `number` of lesson `slug` (its page, its position in the URL; played
    alone or presented), and remember the place left so that a stale rerun cannot undo it."""
    step = lessons()[slug].steps[number - 1]
    st.session_state[LEFT] = place(here)
    st.session_state[MOVED_TO] = (step.page, slug, str(number), "true" if played_alone else None)
    st.session_state[FRESH] = True
    _go(st.session_state[MOVED_TO])


def settle(here: Page) -> None:
    """Before anything draws: a run that carries the place the last move left is a rerun the
    browser sent before it saw the move, so it goes to the place moved to (the step's settings
    are written again: that rerun carried the old step's widget values)."""
    moved_to = st.session_state.get(MOVED_TO)
    if moved_to is None:
        return
    now = place(here)
    if now == moved_to:  # the move's own run, then the browser's first rerun at the new place
        if not st.session_state.pop(FRESH, False):
            st.session_state.pop(LEFT, None)
        return
    if now == st.session_state.get(LEFT):
        st.session_state.pop(APPLIED, None)
        st.session_state[FRESH] = True
        _go(moved_to)  # raises: the run starts again at the place moved to
    for key in (MOVED_TO, LEFT, FRESH):  # somewhere else: a person's own way, followed
        st.session_state.pop(key, None)


def _go(to: Place) -> None:
    url, slug, number, played_alone = to
    query = {LESSON: slug or "", STEP: number or "1"}
    if played_alone:
        query[ALONE] = played_alone
    st.switch_page(page_path(url), query_params=query)
