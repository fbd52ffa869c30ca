"""What the live-training panel (attnviz.ui.training.panel) draws of a run: its status line and
progress, the loss and metric curves with the history's CSV, the timeline over its snapshots, and
the page's own views (`draw_live`) of the shown snapshot, or of the untrained model with a note
when the page's settings changed since the run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from attnviz.figures.training import curves_figure
from attnviz.topics import live
from attnviz.topics.scene import Scene
from attnviz.topics.views import TRAINING_STAGE
from attnviz.training.jobs import Job, JobState
from attnviz.training.messages import RunStatus
from attnviz.training.snapshot import Snapshot
from attnviz.training.specs import JobSpec, spec_changes
from attnviz.ui.common import here
from attnviz.ui.common.figures import show
from attnviz.ui.training.changes import describe_changes

SETTINGS_CHANGED = "Settings changed since this run — Start trains a new one"


@dataclass(frozen=True)
class LiveRun:
    """What `draw_live` draws."""

    state: JobState | None  # the run's state; None before the first Start
    snapshot: Snapshot | None  # the chosen snapshot; None before a run, or if the settings changed
    spec: Any  # the settings of what the views show: the run's own when `snapshot` is given
    changed: list[str] = field(default_factory=list)  # spec fields changed since the run
    step: int | None = None  # the training step of `snapshot`


DrawLive = Callable[[LiveRun], None]
STATUS_ICONS = {  # Material icons: they render on every machine, unlike emoji fonts
    "queued": ":material/hourglass_empty:",
    "starting": ":material/hourglass_top:",
    "running": ":material/play_circle:",
    "paused": ":material/pause_circle:",
    "done": ":material/check_circle:",
    "stopped early": ":material/front_hand:",
    "diverged": ":material/warning:",
    "stopped": ":material/stop_circle:",
    "error": ":material/error:",
}


def status_line(state: JobState, key: str) -> None:
    """The run's status, step and rate, in a container the stage keeps (`<key>_status`)."""
    with st.container(key=f"{key}_status"):
        _status(state)


def _status(state: JobState) -> None:
    icon = STATUS_ICONS.get(state.status, "")
    text = f"{icon} **{state.status}** — step {state.step} of {state.total_steps}"
    if state.status == "queued":
        text += f" — waiting for a free worker (position {state.queue_position} in the queue)"
    if state.history.val_metric:  # the metric in sight (on a stage too, under the buttons)
        text += f" — validation {state.metric_name} {_metric(state)}"
    if reason := _new_reason(state):
        text += f" — {reason}"
    (st.error if state.status in ("diverged", "error") else st.markdown)(text)
    st.progress(
        min(state.step / max(state.total_steps, 1), 1.0), text=f"{state.steps_per_s:,.0f} steps/s"
    )


def _new_reason(state: JobState) -> str:
    """The run's reason less what the step count says already ("finished 800 steps (replayed
    from a recording)" reads "replayed from a recording"): on a stage the line keeps to one."""
    return state.reason.replace(f"finished {state.step} steps", "").strip(" ()")


def _metric(state: JobState) -> str:
    value = state.history.val_metric[-1]
    return f"{value:.3f}" if state.metric_name == "R²" else f"{value:.0%}"


def pick_snapshot(key: str, state: JobState) -> tuple[int | None, Snapshot | None]:
    """(step, snapshot): the latest while running; a timeline slider over all of them
    otherwise. (None, None) before the first snapshot."""
    if not state.snapshots:
        return None, None
    if state.status in (RunStatus.RUNNING, RunStatus.STARTING) or len(state.snapshots) < 2:
        return state.snapshots[-1]
    steps = [step for step, _ in state.snapshots]
    chosen = st.select_slider(
        "Timeline: show the model at step", steps, value=steps[-1], key=f"{key}_timeline"
    )
    return chosen, dict(state.snapshots)[chosen]


def draw_curves(key: str, job: Job, state: JobState, model_name: str = "") -> None:
    """The run's loss and metric (log-scale toggle); once it is over, its history as CSV."""
    log_y = st.toggle("log-scale loss", key=f"{key}_log")
    show(
        curves_figure(state.history, state.metric_name, log_y, model_name, job.config.eval_every),
        f"{key}_curves",
        TRAINING_STAGE,  # across the page's live views (no scene view: its title's room)
        key=f"{key}_curves_chart",
    )
    if not state.active:  # not while polling: a download button redrawn twice a second
        st.download_button(
            "Download the history (CSV)",
            state.history.to_csv,
            f"{key}_history.csv",
            "text/csv",
            key=f"{key}_history_csv",
            on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
            icon=":material/download:",
        )


def draw_step_zero(key: str, spec: JobSpec, steps: int, model_name: str = "") -> None:
    """Before Start, on a presenter's stage that shows a run's curves alone: the untrained
    model's evaluation at step 0 (its losses and metric as the run will start) on axes as long
    as the run (`steps`) and a loss axis from 0, not an empty stage (L7 s3)."""
    stage = here.stage()
    if stage is None or not stage.shows_only(f"{key}_curves"):
        return
    start = live.started(spec)
    figure = curves_figure(start.history, start.metric, model_name=model_name)
    figure.update_xaxes(range=[0, steps])
    figure.update_layout(yaxis_rangemode="tozero")
    figure.update_traces(marker_size=10)
    show(figure, f"{key}_curves", key=f"{key}_curves_chart")


def draw_run(
    scene: Scene,
    job: Job,
    spec: JobSpec,
    draw_live: DrawLive,
    slot: str,
    model_name: str = "",
    curves_last: bool = False,
) -> JobState:
    """The status, curves and views of `job` (the curves last if `curves_last`); the views are
    the run's only if `spec` (the page's settings) is the one it was started with. `slot`: the
    job's slot in this session (what the "Settings changed" note compares with)."""
    key = scene.table.prefix
    state = job.poll()
    status_line(state, key)
    changed = spec_changes(job.spec, spec)
    if changed:
        st.warning(
            f"**{SETTINGS_CHANGED}.** Changed: {describe_changes(slot, scene)}. The status "
            "and curves are the old run's; the views show the new settings, untrained.",
            icon=":material/sync_problem:",
        )
    if not curves_last:
        draw_curves(key, job, state, model_name)
    views = st.container()
    timeline = st.container() if curves_last else views  # with the curves last: under the views
    if changed:
        with views:
            draw_live(LiveRun(state, None, spec, changed))
    else:
        with timeline:
            step, snapshot = pick_snapshot(key, state)
        with views:
            draw_live(LiveRun(state, snapshot, job.spec, step=step))
    if curves_last:
        draw_curves(key, job, state, model_name)
    return state
