"""Recorded runs on the stage (issue 53): in presenter mode, a step whose run the lessons recorded
(attnviz.lessons.recordings) replays it when Start is pressed, over the time the lecturer picks
beside the buttons ("Run": recorded in 20 s or 60 s, or train live), and a question whose answer
is the trained model (`trained = true`) shows the recorded run at its end on Reveal. A replay is
an attnviz.training.replay.ReplayJob in the page's job slot: the panel draws it as any run.
Outside presenter mode every Start trains live."""

from __future__ import annotations

import streamlit as st

from attnviz.lessons.model import Step
from attnviz.lessons.recordings import recorded
from attnviz.topics.scene import Job as PlannedJob
from attnviz.topics.scene import Scene, SceneInputError
from attnviz.training.recording import Recording
from attnviz.training.replay import ReplayJob
from attnviz.ui.lecture.position import position

LIVE = "Train live"
PACES = {"Recorded, 20 s": 20.0, "Recorded, 60 s": 60.0, LIVE: None}  # label -> seconds


def on_stage(planned: PlannedJob) -> Recording | None:
    """The recording of the run Start would train, in presenter mode; else None."""
    if position() is None:
        return None
    return recorded(planned)


def pace(scene: Scene) -> float | None:
    """How Start runs a recorded step, as chosen beside the buttons (`pace_control`, drawn after
    them: its value of the last run, else the first choice): the replay's seconds; None: live."""
    chosen = st.session_state.get(f"{scene.table.prefix}_replay", next(iter(PACES)))
    return PACES.get(chosen)


def pace_control(scene: Scene) -> None:
    """The choice beside the buttons: recorded in 20 s or 60 s, or train live (one is always
    chosen: a segmented control can be emptied)."""
    st.radio(
        "How Start runs this step",
        list(PACES),
        index=0,
        horizontal=True,
        key=f"{scene.table.prefix}_replay",
        help="A recorded run plays at once and trains nothing: the whole hall can follow it",
        label_visibility="collapsed",
    )


def replay(planned: PlannedJob, seconds: float, at_end: bool = False) -> ReplayJob | None:
    """The recorded run of `planned` as a job (None when the lessons hold none)."""
    recording = recorded(planned)
    if recording is None:
        return None
    return ReplayJob(recording, planned.spec, planned.train, seconds, at_end=at_end)


def reveal_trained(step: Step, scene: Scene | None, values: dict) -> ReplayJob | None:
    """On Reveal of a question about the trained model: the step's recorded run at its end, for
    the page's current settings (None when there is none, or the settings have no recording)."""
    if scene is None or step.question is None or not step.question.trained:
        return None
    try:
        planned = scene.config(scene.values(values))
    except SceneInputError:
        return None
    return replay(planned, 1.0, at_end=True)
