"""The page this rerun draws and the presenter's stage it shows, known once per run: app.py names
the page (`enter`) from its navigation before anything is drawn, presenter mode sets the step's
stage (`set_stage`, an attnviz.lessons.stage.Stage) before the page draws, and the furniture asks
for them (`page`, `scene`, `stage`) instead of reading Streamlit's private page manager or
passing url strings and stage sizes around. They live in the run's own context (a ContextVar of
the script's thread), not in the session's state: a later run starts without them. A fragment's
rerun (a live run's poll) does not pass through app.py: `fragment` hands it the page and stage
of the full run that drew it, which are its own (a step changes only in a full run).

In presenter mode each named view is drawn in a container keyed `view_<name>` (`view_place`),
so the stage finds the views a lesson step names. On a stage of views alone the server lays
them out: the stage opens a place for each of the step's views, in the step's order, before the
page draws (`open_places`: a row of columns, keyed `stage_row`, where they stand side by side),
and each view is drawn in its place wherever the page draws it, a live run's fragment too
(Streamlit keeps a fragment's writes to a place opened outside it)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException, StreamlitDuplicateElementKey

from attnviz.lessons.stage import Stage
from attnviz.topics.registry import HOME, Page
from attnviz.topics.scene import Scene

VIEW_PREFIX = "view_"  # a named view's container key in presenter mode: view_<name>
STAGE_KEY = "lesson_stage"  # the stage's component: its state holds the room it measured
STAGE_ROW = "stage_row"  # the row of columns of views side by side (static/stage.css)


@dataclass
class _Run:
    """What one full run draws: made afresh by each (`enter`), so nothing of an earlier run's
    stage is read as this one's."""

    page: Page
    stage: Stage | None = None  # set when presenter mode mounts a stage of views alone
    places: dict[str, Any] = field(default_factory=dict)  # each staged view's place (open_places)


_RUN: ContextVar[_Run | None] = ContextVar("attnviz_run", default=None)  # this run's


def enter(page: Page) -> Page:
    """Name the page this run draws (app.py, once per full run); returns it."""
    _RUN.set(_Run(page))
    return page


def _run() -> _Run:
    run = _RUN.get()
    if run is None:  # before app.py named the page (home)
        run = _Run(HOME)
        _RUN.set(run)
    return run


def fragment(body: Callable[[], None], run_every: float | None = None) -> Callable[[], None]:
    """st.fragment over `body`, whose reruns draw under the page and stage of this full run
    (they do not pass through app.py; the fragment keeps the run it was made in)."""
    made_in = _run()

    @wraps(body)
    def under_its_run() -> None:
        _RUN.set(made_in)
        body()

    return st.fragment(under_its_run, run_every=run_every)


def page() -> Page:
    """The page this run draws (home before app.py has named one)."""
    return _run().page


def scene() -> Scene | None:
    """The scene of the page this run draws (None on a page without one)."""
    return page().scene


def set_stage(stage: Stage | None) -> None:
    """This run's stage (attnviz.ui.lecture.stage, before the page's views): the step's views
    alone, or None when the page's controls are shown."""
    _run().stage = stage


def stage() -> Stage | None:
    """The stage this run draws under: the one this full run mounted, or, in a fragment's rerun,
    the one its full run mounted. None elsewhere: every view is drawn, at its own size.
    A view the stage does not show is not drawn at all, so a step change and each poll of a live
    run cost the server and the projector's browser only the views the class sees (a poll that
    drew them all showed the page's other views, and no map, for a second after Start: L6 s3)."""
    return _run().stage


def staged() -> bool:
    """Presenter mode with the page's controls hidden: the step's views alone, full width
    (attnviz.ui.lecture.stage)."""
    return "lesson" in st.query_params and not st.session_state.get("lesson_controls", False)


def open_places(shown: Stage) -> None:
    """The places of the stage's views, in its order, here (attnviz.ui.lecture.stage, before
    the page draws): one column each in a row where they stand side by side, else one under
    the other."""
    if shown.side_by_side:
        row = st.container(key=STAGE_ROW)
        places = row.columns(len(shown.views), gap="medium")
    else:
        places = [st.container() for _ in shown.views]
    _run().places = dict(zip(shown.views, places, strict=True))


def view_place(name: str) -> Any:
    """Where the view `name` is drawn: in presenter mode a container keyed `view_<name>` (in
    its place on a stage: `open_places`), else the current place. A view drawn twice in one run
    is found at its first place: Streamlit refuses a key twice in a run (a full run's or a
    fragment's), before it draws anything."""
    if "lesson" not in st.query_params:
        return nullcontext()
    place = _run().places.get(name) if stage() is not None else None
    for where in (st,) if place is None else (place, st):
        try:
            return where.container(key=VIEW_PREFIX + name)
        except StreamlitDuplicateElementKey:
            return nullcontext()
        except StreamlitAPIException:  # a fragment's first write to its place in its own rerun
            continue
    return nullcontext()
