"""Presenter mode's stage: a lesson step shows the views it names (`views` in the lesson file)
and the widgets its narration asks the presenter to move (`controls`), and nothing else of its
page, full width and sized to the screen under the lesson's bar; a
question's answer-bearing views (`hides`, else all the step's views) are veiled until Reveal,
the room they take showing the question. The work in the page is done by static/stage.js, a
components-v2 component (in the app's page, offline, no iframe): the page draws each view in a
container keyed `view_<name>` (attnviz.ui.common.here.view_place); the names and the question
reach the script as data, never as code or HTML. The script reports the room the views have;
the server draws them to it and leaves an empty marker keyed with that room, so the script can
mark the page settled (`data-stage-settled`) once what is drawn matches what it measures.
"Show the page's controls" turns the stage off: the whole page, as without a lesson."""

from __future__ import annotations

import streamlit as st

from attnviz.lessons.math_text import plain
from attnviz.lessons.model import Step
from attnviz.lessons.stage import Room, Stage, hidden_views
from attnviz.topics import registry
from attnviz.ui.common import here
from attnviz.ui.common.sidebar import STATIC, css

STAGE = st.components.v2.component(
    "attnviz_stage", js=(STATIC / "stage.js").read_text(encoding="utf-8")
)


DRAWN_PREFIX = "stage_drawn_"  # the marker's key: stage_drawn_<height>x<width>x<rows>


def measured_room() -> Room | None:
    """The room the stage component last reported (its state), which this run's views are drawn
    to: once it equals what the stage measures, the stage has settled."""
    state = st.session_state.get(here.STAGE_KEY) or {}
    return Room.read(state.get("room") if hasattr(state, "get") else None)


def stage(step: Step, where: str, on: bool, revealed: bool) -> None:
    """Mount the stage of `step` (`where`: "<slug>:<n>", a new step folds the sidebar); `on`:
    the page's controls are hidden, so the stage shows the views alone. This run's Stage value
    (its views, what is veiled, the room the browser last measured) is made here, once, for the
    views the page draws next."""
    st.html(css("stage"))  # static CSS, never user text
    prompt = plain(step.question.prompt) if step.question is not None else ""
    apart = registry.scene(step.page).apart_views if registry.has_scene(step.page) else ()
    data = {
        "views": list(step.views),
        "controls": list(step.controls),
        "hidden": list(hidden_views(step, revealed)),
        "question": f"Predict first: {prompt}" if prompt else "",
        "step": where,
        "on": on and bool(step.views),
        # a training page's Start, Pause and Step, unless the step shows only views apart from
        # its run (the vision page's real ViT)
        "run": not (step.views and set(step.views) <= set(apart)),
    }
    room = measured_room()
    here.set_stage(Stage.of(step, where, revealed, room) if data["on"] else None)
    STAGE(data=data, key=here.STAGE_KEY, on_room_change=lambda: None)


def mark_drawn() -> None:
    """After the page (app.py, however the page's script ended): an empty marker naming the room
    this run's views were drawn for, when this run's stage shows views alone. Left at the top,
    before the views, it told the stage it had settled while the last room's views still showed
    (the walk caught L7 s2's heads cut at 1130 of 1080 px after a resize)."""
    shown = here.stage()
    if shown is not None and shown.room is not None:
        marker = st.container(key=DRAWN_PREFIX + shown.room.marker())
        marker.html("<span></span>")  # static: an empty container is not drawn at all
