"""The presenter's side of a live classroom room, in the lesson bar's row
(attnviz.ui.lecture.presenter): "Open a room" opens one for the lesson; then the room's popover
shows its code and the QR code of the students' link (large in a dialog, for the back row), the
results as CSV, "Close the room", and the presenter's own link in a collapsed expander (never
projected by default). The presenter key lives in this session (`ROOMS`); every step the bar shows
is sent to the room (`set_step`), so Next, Previous and the arrow keys move the students too. A
presenter link (`room`, `room_key` in the URL) is checked by the store, taken into the session and
dropped from the address bar."""

from __future__ import annotations

import html

import streamlit as st

from attnviz.classroom import NoSuchRoom, NotPresenter
from attnviz.classroom.qr import qr_svg
from attnviz.classroom.views import ROOM, ROOM_KEY, presenter_path, students_room_path
from attnviz.lessons.links import absolute_link
from attnviz.lessons.model import Lesson
from attnviz.topics.registry import Page
from attnviz.ui.common.sidebar import css
from attnviz.ui.lecture.links import link_base
from attnviz.ui.lecture.store import attempt

ROOMS = "_classroom_rooms"  # lesson slug -> (code, presenter key) of the room it opened
SENT = "_classroom_step_sent"  # (code, step) the room was last moved to
SHOW_LARGE = "_classroom_show_large"  # open the large code's dialog at the next run
CLOSING = "_room_closing"  # session state: "Close the room" was pressed once


def room_of(slug: str) -> tuple[str, str] | None:
    """(code, key) of the room this session opened for lesson `slug`, or None."""
    return st.session_state.get(ROOMS, {}).get(slug)


def presenter_key(code: str) -> str | None:
    """The presenter key this session holds for room `code` (None: a student's session)."""
    return next((k for c, k in st.session_state.get(ROOMS, {}).values() if c == code), None)


def _forget(slug: str) -> None:
    st.session_state.get(ROOMS, {}).pop(slug, None)
    st.session_state.pop(SENT, None)


def adopt_link(slug: str) -> None:
    """Take a presenter link's room into this session (the store checks the key) and drop the
    key from the address bar; a wrong key or a closed room gets its message."""
    code, key = st.query_params.get(ROOM), st.query_params.get(ROOM_KEY)
    for name in (ROOM, ROOM_KEY):
        st.query_params.pop(name, None)
    if code is None or key is None:
        return
    found, _ = attempt(lambda store: store.check_presenter(code, key))
    if found is not None:
        st.session_state.setdefault(ROOMS, {})[slug] = (found, key)


def sync_step(slug: str, number: int) -> None:
    """Move the room to the step the bar shows (once per step; students' phones follow)."""
    room = room_of(slug)
    if room is None or st.session_state.get(SENT) == (room[0], number):
        return
    code, key = room
    _, error = attempt(lambda store: store.set_step(code, key, number))
    if error is None:
        st.session_state[SENT] = (code, number)
    elif isinstance(error, NoSuchRoom | NotPresenter):
        _forget(slug)


def _open(slug: str, number: int) -> None:
    opened, _ = attempt(lambda store: store.open_room(slug))
    if opened is not None:
        st.session_state.setdefault(ROOMS, {})[slug] = opened
        st.session_state[SHOW_LARGE] = True


def _close(slug: str) -> None:
    room = room_of(slug)
    if room is not None:
        attempt(lambda store: store.close_room(*room), place=False)
    _forget(slug)


def room_control(row, lesson: Lesson, number: int, here: Page) -> None:
    """The bar's room control in `row`: "Open a room", or the open room's button, which shows
    its code and QR code large in a dialog the presenter closes (opened once by itself when
    the room opens)."""
    if ROOM_KEY in st.query_params:
        adopt_link(lesson.slug)
    sync_step(lesson.slug, number)
    room = room_of(lesson.slug)
    if room is None:
        row.button(
            "Open a room",
            key="room_open",
            icon=":material/groups:",
            on_click=_open,
            args=(lesson.slug, number),
            wrap=False,
        )
        return
    code = room[0]
    shown = row.button(f"Room {code}", key="room_show", icon=":material/qr_code_2:", wrap=False)
    if st.session_state.pop(SHOW_LARGE, False) or shown or st.session_state.get(CLOSING):
        _room_dialog(lesson.slug, number, here)


def _dismissed() -> None:
    st.session_state.pop(CLOSING, None)  # closed with × or Esc: the question is dropped too


@st.dialog("Join the room", width="large", on_dismiss=_dismissed)
def _room_dialog(slug: str, number: int, here: Page) -> None:
    """The room's code and QR code, large for the back row; its link, the results, closing
    it, and the presenter's own link folded away."""
    room = room_of(slug)
    if room is None:
        st.info("The room is closed.")
        return
    code, key = room
    base, note = link_base(here)
    link = absolute_link(base, students_room_path(code))
    st.html(css("classroom"))  # static CSS, never user text
    left, right = st.columns([1, 1], vertical_alignment="center")
    left.image(qr_svg(link), width="stretch")  # our SVG, drawn as an image: no user text
    with right:
        st.html(code_card(code))
        st.code(link, language=None, wrap_lines=True)
        if note:
            st.caption(note)
        results = lambda: attempt(lambda store: store.export_csv(code, key), False)[0] or ""  # noqa: E731
        st.download_button(
            "Download results (CSV)",
            data=results,
            file_name=f"room-{code}.csv",
            mime="text/csv",
            key="room_csv",
            icon=":material/download:",
        )
        closing_asked(slug)
    with st.expander("Presenter link (keep it to yourself)"):
        st.caption("Opens this room as its presenter in another tab or after a reload.")
        st.code(
            absolute_link(base, presenter_path(here.url, slug, number, code, key)),
            language=None,
            wrap_lines=True,
        )


def closing_asked(slug: str) -> None:
    """ "Close the room" asks once: closing sends every phone out of the room and its votes can
    no longer be cast, so a slip of the mouse must not do it. The question is kept in session
    state, so the dialog shows it on the rerun the press causes (its own or the whole app's)."""
    if not st.session_state.get(CLOSING):
        st.button("Close the room", key="room_close", icon=":material/close:", on_click=_ask)
        return
    st.warning("Close the room for every student? Their phones leave it; no vote can be cast.")
    yes, no = st.columns(2)
    if yes.button("Close it", key="room_close_yes", type="primary"):
        st.session_state.pop(CLOSING, None)
        _close(slug)
        st.rerun()
    no.button("Keep it open", key="room_close_no", on_click=_dismissed)


def _ask() -> None:
    st.session_state[CLOSING] = True


def code_card(code: str) -> str:
    """The room's code in large letters (HTML made here; the code is the store's six letters,
    escaped all the same)."""
    return (
        '<div class="room-card"><div class="room-card-label">Room code</div>'
        f'<div class="room-card-code">{html.escape(code)}</div></div>'
    )
