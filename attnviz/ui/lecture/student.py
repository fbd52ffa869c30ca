"""A student's device in a live classroom room (`?room=CODE`, or the code typed on the home
page): it follows the presenter's current step (the step's page and settings, written into the
page's widgets once per step as presenter mode does, attnviz.ui.lecture.presenter.enter_step), with
no presenter control. The room's pulse (attnviz.ui.lecture.pulse, static/room_pulse.js) reruns
the page within about a second when the presenter moves on, opens or closes a vote, or ends the
room; a fragment polls the room every FOLLOW_S seconds behind it (one indexed read) and redraws
the page on a change too. The student may explore (change a
slider, even another page); "Back to the presenter's step" snaps back. On top of the page, a
compact panel: the room and step, and the step's vote (attnviz.ui.lecture.votes.ballot), so
that on a phone the question and its options are above the fold.

app.py calls `follow_room(page)` before the sidebar is drawn, when the URL or the session names a
room (`in_a_room`) and no lesson: a student who opens another page from the sidebar stays in
the room, its panel and "Back to the presenter's step" on top."""

from __future__ import annotations

import streamlit as st

from attnviz.classroom import NoSuchRoom, RoomState
from attnviz.classroom.tokens import normalize_code
from attnviz.classroom.views import ROOM, followed_step, signature
from attnviz.lessons.model import Lesson
from attnviz.topics.registry import Page
from attnviz.ui.common.sidebar import STATIC, css
from attnviz.ui.common.widgets import apply
from attnviz.ui.index_page import base_path
from attnviz.ui.lecture.joined import JOINED
from attnviz.ui.lecture.position import lessons, page_path
from attnviz.ui.lecture.pulse import PATH
from attnviz.ui.lecture.store import attempt, show
from attnviz.ui.lecture.voter_id import voter_id
from attnviz.ui.lecture.votes import ballot

PULSE = st.components.v2.component(
    "attnviz_room_pulse", js=(STATIC / "room_pulse.js").read_text(encoding="utf-8")
)
FOLLOWED = "_classroom_followed"  # (code, step) whose settings were last written into the page
SEEN = "_classroom_seen"
# the panel's own poll: behind the pulse (a move heard within a second, static/room_pulse.js),
# for a page whose JavaScript does not run it, and for what the pulse does not carry
FOLLOW_S = 5.0  # the room's signature (views.signature) this page was drawn for


def follow_room(here: Page) -> None:
    """Follow the room the URL (or this session) names (see the module docstring)."""
    code = normalize_code(str(st.query_params.get(ROOM, st.session_state.get(JOINED, ""))))
    if code is None:
        st.warning("This link's room code is not a room code: ask for the code on the projector.")
        return
    was_in = st.session_state.get(JOINED) == code  # this session followed it before this run
    st.session_state[JOINED] = code
    if st.query_params.get(ROOM) != code:
        st.query_params[ROOM] = code  # the address keeps the room: a reload stays in it
    state, error = attempt(lambda store: store.join(code), place=False)
    if error is not None:
        if isinstance(error, NoSuchRoom):
            closed(code, error, was_in)
            return
        show(error)
        _poll(code, None)  # the database is down: keep trying, the page works without it
        return
    lesson = lessons().get(state.lesson)
    if lesson is None:
        st.warning("This room's lesson is not in this version of the app.")
        return
    number = followed_step(state.step, len(lesson.steps))
    step = lesson.steps[number - 1]
    if st.session_state.get(FOLLOWED) != (code, number):
        if step.page != here.url:
            st.switch_page(page_path(step.page), query_params={ROOM: code})
        if step.table() is not None:
            apply(step.table(), step.state())
        st.session_state[FOLLOWED] = (code, number)
    st.session_state[SEEN] = signature(state)
    PULSE(
        data={"path": pulse_url(code), "seen": list(signature(state))},
        key="room_pulse",
        on_seen_change=lambda: None,
    )  # a move reruns the page within a second
    st.html(css("classroom"))  # static CSS, never user text
    if state.open_round is not None and state.open_round.step == state.step:
        st.html(css("hide_figures"))  # vote alone first: the figures stay blurred meanwhile
    voter = voter_id()
    with st.container(key="room_panel"):
        _poll(code, (lesson, voter))


def pulse_url(code: str) -> str:
    """Where the phone asks for the room's pulse: the server's base path and the pulse's path
    (the browser resolves it against this origin)."""
    return base_path() + PATH + code


def closed(code: str, error: NoSuchRoom, was_in: bool) -> None:
    """The room is gone: said so (as closed to a phone that was in it, as unknown to a link),
    the page left to explore, and a way to join another."""
    st.session_state.pop(JOINED, None)
    if was_in:
        st.info(
            f"Room {code} has closed: the presenter ended it, or its time is up. This page "
            "stays yours to explore.",
            icon=":material/door_front:",
        )
    else:
        show(error)
    st.page_link("pages/home.py", label="Join another room", icon=":material/home:")


def back_to_presenter() -> None:
    """on_click: the presenter's step again (its page and settings) at the next run."""
    st.session_state.pop(FOLLOWED, None)


@st.fragment(run_every=FOLLOW_S)
def _poll(code: str, context: tuple[Lesson, str] | None) -> None:
    """The room's state every FOLLOW_S seconds: the whole page is redrawn when it changed."""
    state, error = attempt(lambda store: store.join(code), place=False)
    if isinstance(error, NoSuchRoom):  # closed meanwhile: the page as a closed room leaves it
        st.session_state.pop(FOLLOWED, None)
        st.rerun(scope="app")  # (no blurred figures, no more polling: follow_room says so)
    if error is not None:
        show(error)
        return
    if context is None or signature(state) != st.session_state.get(SEEN):
        st.rerun(scope="app")
    lesson, voter = context
    _panel(state, lesson, voter)


def _panel(state: RoomState, lesson: Lesson, voter: str) -> None:
    number = followed_step(state.step, len(lesson.steps))
    step = lesson.steps[number - 1]
    row = st.container(horizontal=True, vertical_alignment="center", key="room_head")
    row.markdown(f"**Room {state.code}** · step {number} of {len(lesson.steps)}")
    if row.button("Back to the presenter's step", key="room_back", icon=":material/undo:"):
        back_to_presenter()
        st.rerun(scope="app")  # the panel is a fragment: its own rerun would not move the page
    question = step.question
    if question is not None:
        answer = None if question.computed is not None else question.answer
        ballot(state, voter, question.prompt, answer, taps=question.taps_a_token)


def join_box() -> None:
    """The home page's "Join a room": a typed code, checked (its shape, then the store), and
    the room followed; a bad or closed code gets a message in plain words."""
    with st.form("room_join", border=True):
        row = st.container(horizontal=True, vertical_alignment="bottom")
        typed = row.text_input(
            "Join a room: the code on the projector",
            max_chars=20,
            placeholder="e.g. K7QP2M",
            key="room_code",
            width=360,
        )
        joined = row.form_submit_button("Join", icon=":material/groups:")
    if not joined:
        return
    code = normalize_code(typed or "")
    if code is None:
        st.warning("A room code is 6 letters and digits, as on the projector (e.g. K7QP2M).")
        return
    _, error = attempt(lambda store: store.join(code))
    if error is None:
        st.session_state.pop(FOLLOWED, None)
        st.query_params[ROOM] = code
        st.rerun()
