"""The page this rerun draws, known once per run: app.py names it (`enter`) from its
navigation before anything is drawn, and the furniture asks for it (`page`, `scene`) instead of
reading Streamlit's private page manager or passing url strings around.

In presenter mode each named view is drawn in a container keyed `view_<name>` (`view_place`),
so the stage (attnviz.ui.lecture.stage) finds the views a lesson step names."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attnviz.topics.registry import HOME, Page
from attnviz.topics.scene import Scene

KEY = "_here"  # session state: the Page this session's current run draws
DRAWN = "_here_views"  # session state: the views placed in this run (presenter mode)
VIEW_PREFIX = "view_"  # a named view's container key in presenter mode: view_<name>


def enter(page: Page) -> Page:
    """Name the page this run draws (app.py, once per run); returns it."""
    st.session_state[KEY] = page
    return page


def page() -> Page:
    """The page this run draws (home before app.py has named one)."""
    return st.session_state.get(KEY, HOME)


def scene() -> Scene | None:
    """The scene of the page this run draws (None on a page without one)."""
    return page().scene


STAGE_KEY = "lesson_stage"  # the stage's component: its state holds the room it measured
STAGED = "_stage_views"  # session state: the views the step shows on its stage (else empty)
STAGED_RUN = "_stage_run"  # session state: the run that mounted the stage last (`stage_mounted`)
VIEW_GAP_PX = 16  # between two views on a stage


def _room(name: str) -> tuple[list, tuple[str, ...]] | None:
    """(the room the stage measured: [height, width, rows], the step's views) when the view
    `name` is on the presenter's stage and the room is known, else None."""
    views = st.session_state.get(STAGED) or ()
    state = st.session_state.get(STAGE_KEY) or {}
    room = state.get("room") if hasattr(state, "get") else None
    if name not in views or not isinstance(room, list) or len(room) != 3:
        return None
    return room, views


def stage_height(name: str) -> int | None:
    """The height (px) to draw the view `name` at on the presenter's stage: its share of the
    room the stage measured under the lesson's text (the summary line under a page's main view
    is hidden there); None when the view is not on a stage or the room is not known yet."""
    found = _room(name)
    if found is None:
        return None
    room, views = found
    rows = max(1, min(int(room[2]), len(views)))  # two views side by side on a wide screen: 1
    share = (int(room[0]) - VIEW_GAP_PX * (rows - 1)) // rows
    return max(240, share)


def stage_width(name: str) -> int | None:
    """The width (px) the view `name` spans on the presenter's stage (half the room's for two
    views side by side); None when it is not on a stage or the room is not known yet."""
    found = _room(name)
    if found is None:
        return None
    room, views = found
    across = len(views) if int(room[2]) == 1 else 1
    return (int(room[1]) - VIEW_GAP_PX * (across - 1)) // across


def staged() -> bool:
    """Presenter mode with the page's controls hidden: the step's views alone, full width
    (attnviz.ui.lecture.stage)."""
    return "lesson" in st.query_params and not st.session_state.get("lesson_controls", False)


def stage_shows(name: str) -> bool:
    """True when this session's presenter stage shows the view `name` alone."""
    return tuple(st.session_state.get(STAGED) or ()) == (name,) and staged()


def stage_mounted(views: tuple[str, ...]) -> None:
    """The stage of this run shows `views` (attnviz.ui.lecture.stage, before the page's views)."""
    st.session_state[STAGED] = views
    st.session_state[STAGED_RUN] = _run_token()


def off_stage(name: str) -> bool:
    """True when the view `name` would be hidden: this very run mounted a presenter's stage that
    shows other views (the page's controls closed), or a fragment's rerun under that stage.
    Such a view is not drawn at all, so a step change and each poll of a live run cost the
    server and the projector's browser only the views the class sees (a poll that drew them all
    showed the page's other views, and no map, for a second after Start: L6 s3). In any other
    run (one that draws a view before its stage) every view is drawn: the stage then hides what
    it does not show, as before."""
    return off_stage_run() and name not in (st.session_state.get(STAGED) or ())


def off_stage_run() -> bool:
    """True when this very run mounted a stage that shows the step's views alone, or this is a
    fragment's rerun (a live run's poll) under the stage the last full run mounted: a step
    changes only in a full run, so that stage is this step's."""
    views = st.session_state.get(STAGED) or ()
    mounted = st.session_state.get(STAGED_RUN) is _run_token() or _fragment_run()
    return mounted and bool(views) and staged()


def _fragment_run() -> bool:
    """True in a fragment's own rerun (not a full run that also runs the fragment)."""
    ctx = get_script_run_ctx()
    return ctx is not None and bool(ctx.fragment_ids_this_run)


def view_place(name: str) -> Any:
    """Where the view `name` is drawn: in presenter mode a container keyed `view_<name>` (once a
    run; a view drawn twice is found at its first place), else the current place."""
    if "lesson" not in st.query_params:
        return nullcontext()
    run = _run_token()
    token, drawn = st.session_state.get(DRAWN, (None, set()))
    if token is not run:  # a new run (a fragment's too): no view placed yet
        drawn = set()
    if name in drawn:
        return nullcontext()
    st.session_state[DRAWN] = (run, drawn | {name})
    return st.container(key=VIEW_PREFIX + name)


def _run_token() -> object:
    """Tells this script run (a full run's or a fragment's) from the others: Streamlit gives
    each run new element cursors. The object itself, compared with `is`, and kept in session
    state while it is the last: its `id()` was reused by a later run's cursors once the last
    run's were freed, and that run took L1 s10's view for one it had already placed (drawn
    outside its keyed container, the stage found none and stayed empty)."""
    ctx = get_script_run_ctx()
    return ctx.cursors if ctx is not None else None
