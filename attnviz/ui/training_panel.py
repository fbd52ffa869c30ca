"""The live-training panel every training page reuses.

    training_panel(key, factory, spec, config, draw_live, problems=None)

- `key`: a short page prefix ("ks"); widget keys and the session's job slot derive from it.
- `factory`, `spec`, `config`: what `JobPool.submit` takes (see attnviz.training.jobs): "module:function"
  building a Trainable from the picklable `spec`, and a `training.TrainConfig`.
- `draw_live(state, snapshot)`: the page's own views; called inside the fragment with the
  `JobState` and the chosen snapshot dict, or with (None, None) before the first Start (so
  the page can show the untrained model).
- `problems`: messages about bad settings; they disable Start and Step and are shown.

It draws Start / Pause-Resume / Step / Stop / Reset (outside any fragment, with on_click
callbacks), then a fragment that polls the job every 0.5 s while it runs (and not at all
otherwise): a status line with its reason (and queue position), a progress bar with steps/s,
live train/validation curves for the loss and the metric (log-scale toggle), once the run is
paused or over a timeline slider over the snapshots and a CSV download of the history, and
finally `draw_live`. Jobs run in the server's worker-process pool (`job_pool()`); each browser
session holds its jobs in a session-scoped resource whose release stops them, so closing the
tab ends the run.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import streamlit as st

from attnviz.figures.training import curves_figure
from attnviz.training.jobs import Job, JobPool, JobState
from attnviz.training.trainer import TrainConfig
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


def _slot(key: str) -> str:
    """The job's slot: the panel key within this session. (AppTest gives every test app the
    same session id, so a token kept in session_state tells its apps apart.)"""
    token = st.session_state.setdefault("_training_panel_token", uuid.uuid4().hex)
    return f"{token}:{key}"


def current_job(key: str) -> Job | None:
    return session_jobs().get(_slot(key))


def _start(key: str, factory: str, spec, config: TrainConfig, paused: bool = False) -> Job:
    old = session_jobs().pop(_slot(key), None)
    if old is not None:
        old.stop()
    job = job_pool().submit(factory, spec, config, paused=paused)
    session_jobs()[_slot(key)] = job
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
    job = session_jobs().pop(_slot(key), None)
    if job is not None:
        job.stop()


def controls(key: str, factory: str, spec, config: TrainConfig, problems: list[str]) -> None:
    """The five buttons; `problems` (bad settings) disable Start and Step with a message."""
    job = current_job(key)
    state = job.poll() if job else None
    live = state is not None and not state.finished
    paused = state is not None and state.status == "paused"
    run = (key, factory, spec, config)
    buttons = {  # widget key suffix: label, icon, callback, args, disabled, help
        "start": ("Start", "play_arrow", _start, run, bool(problems), None),
        "pause": (
            "Resume" if paused else "Pause",
            "play_arrow" if paused else "pause",
            _toggle_pause,
            (key,),
            not live,
            None,
        ),
        "step": (
            "Step",
            "skip_next",
            _step,
            run,
            bool(problems),
            "Pause and take exactly one step",
        ),
        "stop": ("Stop", "stop", _stop, (key,), not live, None),
        "reset": ("Reset", "restart_alt", _reset, (key,), job is None, None),
    }
    for col, (name, (label, icon, callback, args, disabled, tip)) in zip(
        st.columns(len(buttons)), buttons.items(), strict=True
    ):
        col.button(
            label,
            icon=f":material/{icon}:",
            key=f"{key}_{name}",
            on_click=callback,
            args=args,
            disabled=disabled,
            help=tip,
            type="primary" if name == "start" else "secondary",
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
    job_pool()  # start the fork server (and its imports) now, so that the first Start is quick
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
        if not state.active:  # not while polling: a download button redrawn twice a second
            st.download_button(
                "Download the history (CSV)",
                state.history.to_csv,
                f"{key}_history.csv",
                "text/csv",
                key=f"{key}_history_csv",
                icon=":material/download:",
            )
        draw_live(state, pick_snapshot(key, state))
        if running and not state.active:
            st.rerun()  # the run ended: redraw the page once so polling stops

    st.fragment(live, run_every=0.5 if running else None)()
