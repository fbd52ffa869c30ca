"""The live-training panel every training page reuses.

    training_panel(key, factory, spec, config, draw_live)

draws Start / Pause-Resume / Step / Stop / Reset (outside any fragment, with on_click callbacks),
then a fragment that polls the job every 0.5 s while it runs (and not at all otherwise): a
status line with its reason, a progress bar with steps/s, live train/validation curves for the
loss and the metric (log-scale toggle), a timeline slider over the snapshots once the run is
paused or over, and finally `draw_live(state, snapshot)` for the page's own live views.
Jobs run in the shared worker-process pool (attnviz.jobs); each browser session holds its own
jobs in a session-scoped resource whose release stops them, so closing the tab ends the run.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from attnviz.jobs import Job, JobPool, JobState
from attnviz.plots_training import curves_figure
from attnviz.training import TrainConfig
from attnviz.ui.figures import show

DrawLive = Callable[[JobState | None, dict | None], None]
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


@st.cache_resource(show_spinner=False)
def job_pool() -> JobPool:
    """One pool per server: at most one training worker per CPU core."""
    return JobPool()


def _stop_all(jobs: dict[str, Job]) -> None:
    for job in list(jobs.values()):
        job.stop()


@st.cache_resource(scope="session", on_release=_stop_all, show_spinner=False)
def session_jobs() -> dict[str, Job]:
    """This browser session's jobs by panel key; released (and stopped) with the session."""
    return {}


def current_job(key: str) -> Job | None:
    return session_jobs().get(key)


def _start(key: str, factory: str, spec, config: TrainConfig, paused: bool = False) -> Job:
    old = session_jobs().pop(key, None)
    if old is not None:
        old.stop()
    job = job_pool().submit(factory, spec, config, paused=paused)
    session_jobs()[key] = job
    return job


def _toggle_pause(key: str) -> None:
    job = current_job(key)
    if job is not None:
        job.resume() if job.poll().status == "paused" else job.pause()


def _step(key: str, factory: str, spec, config: TrainConfig) -> None:
    job = current_job(key)
    if job is None or job.poll().finished:
        job = _start(key, factory, spec, config, paused=True)
    job.step()


def _stop(key: str) -> None:
    job = current_job(key)
    if job is not None:
        job.stop()


def _reset(key: str) -> None:
    job = session_jobs().pop(key, None)
    if job is not None:
        job.stop()


def controls(key: str, factory: str, spec, config: TrainConfig, problems: list[str]) -> None:
    """The five buttons; `problems` (bad settings) disable Start and Step with a message."""
    job = current_job(key)
    state = job.poll() if job else None
    live = state is not None and not state.finished
    cols = st.columns(5)
    cols[0].button(
        "Start",
        icon=":material/play_arrow:",
        key=f"{key}_start",
        on_click=_start,
        args=(key, factory, spec, config),
        disabled=bool(problems),
        type="primary",
        width="stretch",
    )
    paused = state is not None and state.status == "paused"
    cols[1].button(
        "Resume" if paused else "Pause",
        icon=":material/play_arrow:" if paused else ":material/pause:",
        key=f"{key}_pause",
        on_click=_toggle_pause,
        args=(key,),
        disabled=not live,
        width="stretch",
    )
    cols[2].button(
        "Step",
        icon=":material/skip_next:",
        key=f"{key}_step",
        on_click=_step,
        args=(key, factory, spec, config),
        disabled=bool(problems),
        width="stretch",
        help="Pause and take exactly one step",
    )
    cols[3].button(
        "Stop",
        icon=":material/stop:",
        key=f"{key}_stop",
        on_click=_stop,
        args=(key,),
        disabled=not live,
        width="stretch",
    )
    cols[4].button(
        "Reset",
        icon=":material/restart_alt:",
        key=f"{key}_reset",
        on_click=_reset,
        args=(key,),
        disabled=job is None,
        width="stretch",
    )
    for problem in problems:
        st.error(problem)


def status_line(state: JobState) -> None:
    icon = STATUS_ICONS.get(state.status, "")
    text = f"{icon} **{state.status}** — step {state.step} of {state.total_steps}"
    if state.status == "queued":
        text += f" — waiting for a free worker (position {state.queue_position} in the queue)"
    if state.reason:
        text += f" — {state.reason}"
    (st.error if state.status in ("diverged", "error") else st.markdown)(text)
    st.progress(
        min(state.step / max(state.total_steps, 1), 1.0), text=f"{state.steps_per_s:,.0f} steps/s"
    )


def pick_snapshot(key: str, state: JobState) -> dict | None:
    """The latest snapshot while running; a timeline slider over all of them otherwise."""
    if not state.snapshots:
        return None
    if state.status in ("running", "starting") or len(state.snapshots) < 2:
        return state.latest
    steps = [step for step, _ in state.snapshots]
    chosen = st.select_slider(
        "Timeline: show the model at step", steps, value=steps[-1], key=f"{key}_timeline"
    )
    return dict(state.snapshots)[chosen]


def training_panel(
    key: str,
    factory: str,
    spec,
    config: TrainConfig,
    draw_live: DrawLive,
    problems: list[str] | None = None,
) -> None:
    """Buttons, then the live fragment (see the module docstring)."""
    controls(key, factory, spec, config, problems or [])
    job = current_job(key)
    running = job is not None and job.poll().active

    def live() -> None:
        state = job.poll() if job is not None else None
        if state is None:
            st.info("Press **Start** to train; the views below show the untrained model.")
            draw_live(None, None)
            return
        status_line(state)
        log_y = st.toggle("log-scale loss", key=f"{key}_log")
        show(
            curves_figure(state.history, state.metric_name, log_y),
            f"{key}_curves",
            key=f"{key}_curves_chart",
        )
        draw_live(state, pick_snapshot(key, state))
        if running and not state.active:
            st.rerun()  # the run ended: redraw the page once so polling stops

    st.fragment(live, run_every=0.5 if running else None)()
