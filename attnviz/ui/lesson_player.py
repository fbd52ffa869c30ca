"""Presenter mode: a lesson (attnviz.ui.lessons, files in lessons/) played on top of the pages.

The URL carries the position, `?lesson=<slug>&step=<n>` (n from 1), so a link opens the same
step. app.py calls, on every rerun:

1. `enter_step(page_url)` before the sidebar is drawn: the first time this session sees a
   (lesson, step), it writes the step's complete parameter state into the page's widgets
   (through the page's parameter table, as a preset does) and turns lecture mode on;
2. `presenter_bar(page_url)` above the page: "Step 4 of 12" with a progress bar, Previous /
   Next (keys ← and →; Space too, except on training pages where Space starts training), the narration large, what to point at, and the students' link (the
   step's page and parameters without the presenter's bar); it returns a place for
3. `ask(place, page_url)` after the page has run: the step's question (predict, then reveal:
   the page's figures are blurred until Reveal; a computed answer and its options come from
   what the page published in this run, attnviz.ui.lesson_answers).

Moving to another step (Present, Previous, Next: on_click callbacks, `request_step`) is done by
`follow_request()` at the top of the next rerun: it switches to that step's page with the new
position in the URL.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from attnviz.topics.registry import SCENE_MODULES, page_tables
from attnviz.topics.settings import TABLE as SIDEBAR
from attnviz.ui.lesson_answers import computed, forget
from attnviz.ui.lessons.loader import bundled_lessons
from attnviz.ui.lessons.model import Lesson, Step
from attnviz.ui.navigation import all_pages
from attnviz.ui.sidebar import css
from attnviz.ui.widgets import apply

LESSON, STEP = "lesson", "step"
APPLIED = "_lesson_applied"  # (slug, step) whose state was last written into the widgets
# pages whose Space key starts training (attnviz.ui.training_panel): there only → moves on
SPACE_TAKEN = ("kernel-smoother", "train-transformer", "recurrent", "vision-patches", "captioning")
REQUESTED = "_lesson_goto"  # (slug, step) a button asked for; followed at the next rerun


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


def page_path(url: str) -> str:
    return next(entry.path for entry in all_pages() if entry.url == url)


def enter_step(page_url: str) -> None:
    """Write the step's parameters into its page's widgets, once per (lesson, step)."""
    found = position()
    if found is None:
        return
    lesson, number = found
    step = lesson.steps[number - 1]
    if step.page != page_url or st.session_state.get(APPLIED) == (lesson.slug, number):
        return
    if step.page in SCENE_MODULES:
        apply(page_tables()[step.page], step.state())
    apply(SIDEBAR, {"lecture": True})
    st.session_state[APPLIED] = (lesson.slug, number)


def request_step(slug: str, number: int) -> None:
    """on_click: open step `number` of lesson `slug` at the next rerun."""
    st.session_state[REQUESTED] = (slug, number)


def follow_request() -> None:
    """Switch to the requested step's page, its position in the URL (before anything draws)."""
    slug, number = st.session_state.pop(REQUESTED)
    step = lessons()[slug].steps[number - 1]
    st.switch_page(page_path(step.page), query_params={LESSON: slug, STEP: str(number)})


def students_link(step: Step) -> str:
    """The step's view without the presenter's bar: its page and parameters."""
    query = urlencode(step.query(), doseq=True)
    return f"/{step.page}" + (f"?{query}" if query else "")


def presenter_bar(page_url: str) -> Any:
    """The lesson's bar above the page (nothing when the URL names no lesson). Returns the
    place for the step's question (None when there is none)."""
    found = position()
    if found is None:
        return None
    lesson, number = found
    step = lesson.steps[number - 1]
    st.html(css("presenter"))  # static CSS, never user text
    forget()
    with st.container(border=True, key="presenter_bar"):
        if step.page != page_url:
            st.info(f"“{lesson.title}” continues on another page.")
            st.button("Back to the lesson", key="lesson_back", on_click=request_step,
                      args=(lesson.slug, number))  # fmt: skip
            return None
        _navigation_row(lesson, number, step)
        if step.question is None:
            _narration(step)
            return None
        told, asked = st.columns([3, 2], gap="medium")
        with told:
            _narration(step)
        place = asked.container()
    return place


def ask(place: Any, page_url: str) -> None:
    """The step's question in `place`, once the page has run (see the module docstring)."""
    found = position()
    if place is None or found is None:
        return
    lesson, number = found
    with place:
        predict_then_reveal(lesson, number, lesson.steps[number - 1])


def _narration(step: Step) -> None:
    st.markdown(step.narration)
    if step.point_at:
        st.caption(f"Point at: {step.point_at}")


def _navigation_row(lesson: Lesson, number: int, step: Step) -> None:
    """Previous (←), the progress with the step's title, the page's controls (hidden unless
    asked for), the students' link, Next (→)."""
    total = len(lesson.steps)
    row = st.container(horizontal=True, vertical_alignment="center", key="lesson_row")
    row.button("Previous", key="lesson_prev", disabled=number == 1, shortcut="Left",
               on_click=request_step, args=(lesson.slug, number - 1), wrap=False)  # fmt: skip
    row.progress(number / total, text=f"**{lesson.title}** · step {number} of {total}: "
                 f"{step.title}")  # fmt: skip
    if not row.toggle("Show the page's controls", key="lesson_controls"):
        st.html(css("hide_controls"))  # static CSS, never user text
    with row.popover("Students' link", icon=":material/link:"):
        st.caption("This step's page and settings, without the presenter's bar:")
        st.code(students_link(step), language=None)
    row.button("Next", key="lesson_next", type="primary", disabled=number == total,
               shortcut="Right", on_click=request_step, args=(lesson.slug, number + 1),
               wrap=False)  # fmt: skip
    if step.page not in SPACE_TAKEN and number < total:  # Space also moves on (hidden twin)
        row.button("Next step", key="lesson_next_space", shortcut="Space",
                   on_click=request_step, args=(lesson.slug, number + 1))  # fmt: skip


def predict_then_reveal(lesson: Lesson, number: int, step: Step) -> None:
    """The question; the page's figures stay blurred until Reveal, which marks the answer
    (computed from the live page when the lesson says `computed:<name>`)."""
    question = step.question
    revealed_key = f"_revealed_{lesson.slug}_{number}"
    answer, options = question.answer, list(question.options)
    if question.computed is not None:
        found = computed(question.computed)
        if found is None:
            st.warning("This page did not give the answer to compare with; look at the figure.")
            return
        answer, options = found
    st.markdown(f"**Predict:** {question.prompt}")
    choice = None
    if options:
        choice = st.radio("Your prediction", options, index=None, horizontal=True,
                          key=f"lesson_guess_{lesson.slug}_{number}")  # fmt: skip
    if not st.session_state.get(revealed_key):
        st.html(css("hide_figures"))
        if st.button("Reveal", key="lesson_reveal", icon=":material/visibility:"):
            st.session_state[revealed_key] = True
            st.rerun()
        return
    verdict = "" if choice is None else (" — your prediction was right." if choice == answer
                                         else f" — the prediction was “{choice}”.")  # fmt: skip
    st.success(f"Answer: **{answer}**{verdict}", icon=":material/check_circle:")
    if question.explain:
        st.markdown(question.explain)
