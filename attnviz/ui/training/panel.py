"""The live-training panel every training page reuses.

    training_panel(scene, job, draw_live, problems=None)

- `scene`: the page's Scene; widget keys and the session's job slot derive from its table's
  prefix ("ks").
- `job`: what Start submits (the scene's `Job`: `spec` and `train`, what `JobPool.submit` takes,
  see attnviz.training.jobs): the page's current settings as a frozen job spec that builds its
  own Trainable, and a `training.TrainConfig`.
- `draw_live(run: LiveRun)`: the page's own views, called inside the fragment. A run is bound to
  the spec it was started with: `run.snapshot` is given only when that spec equals the page's
  current one, so the page may draw it with its current settings (and `run.spec` is that spec).
  Before the first Start, or when the settings changed since the run, `run.snapshot` is None and
  the page shows its untrained model; in the second case the panel says so above the views
  ("Settings changed since this run — Start trains a new one") and `run.changed` names the
  fields. Never an old model drawn on new data.
- `problems`: messages about bad settings; they disable Start and Step and are shown.

It draws Start / Pause-Resume / Step / Stop / Reset (outside any fragment, with on_click callbacks;
the Space key presses Start when no run is live, else Pause or Resume, also on a page just opened:
attnviz.ui.common.keyboard_focus; labels wrap rather than truncate), then a fragment that polls the
job every 0.5 s while it runs (every 2 s while it waits in the queue; not at all otherwise): a
status line with its reason (and queue position), a progress bar with steps/s, live train/validation
curves for the loss and the metric (log-scale toggle), once the run is paused or over a timeline
slider over the snapshots and a CSV download of the history, and finally `draw_live` (the curves
after it with `curves_last`, the kernel page's choice); what it draws of a run is in
attnviz.ui.training.run_view.

Every button's click acts once: Streamlit may deliver one click to its on_click twice (first in a
fragment rerun that was in flight when the click arrived, then again in a later full rerun; seen as
a lost Pause: the old toggle paused, then resumed). So Pause and Resume are separate buttons (keys
`<key>_pause` and `<key>_resume`, one shown at a time) with separate intents, so a repeated delivery
of a Pause click can only pause again; and each render gives the buttons a fresh token that a
callback handles only once. Pause and Resume wait (up to ANSWER_WAIT) for the worker's answer, so
the rerun they cause already shows the new status. Jobs run in the server's worker-process pool
(`job_pool()`); each browser session holds its jobs in a session-scoped resource whose release stops
them, so closing the tab ends the run.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import streamlit as st

from attnviz.lessons.model import Step
from attnviz.topics import registry
from attnviz.topics.scene import Job as PlannedJob
from attnviz.topics.scene import Scene
from attnviz.training.jobs import Job, JobPool
from attnviz.training.messages import RunStatus
from attnviz.training.replay import ReplayJob
from attnviz.training.specs import JobSpec
from attnviz.training.trainer import TrainConfig
from attnviz.ui.common import here
from attnviz.ui.common.keyboard_focus import keyboard_focus
from attnviz.ui.training.changes import page_values, remember
from attnviz.ui.training.recorded import on_stage, pace, pace_control, replay, reveal_trained
from attnviz.ui.training.run_view import DrawLive, LiveRun, draw_run, draw_step_zero


@st.cache_resource(show_spinner=False)
def job_pool() -> JobPool:
    """One pool per server: at most one training worker per CPU core, on the Ray cluster at
    ATTNVIZ_RAY_ADDRESS when that is set (attnviz.training.backends), else in local processes."""
    from attnviz.training.jobs import pool_from_environment

    return pool_from_environment()


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


def current_job(scene: Scene) -> Job | None:
    """The run this session holds on the page of `scene` (None before its first Start)."""
    return session_jobs().get(_slot(scene.table.prefix))


def _once(key: str, token: str, action: Callable[..., Any], *args: Any) -> None:
    """Run `action(*args)` unless this render's `token` was handled already (a click that
    Streamlit delivers twice, in a fragment rerun and again in the full rerun, acts once)."""
    handled = st.session_state.setdefault(f"_{key}_handled_clicks", [])
    if token in handled:
        return
    handled[:] = [*handled[-20:], token]
    action(*args)


def install(scene: Scene, job: Job | ReplayJob) -> None:
    """Make `job` the page's run in this session (the one it held before is stopped)."""
    slot = _slot(scene.table.prefix)
    remember(slot, scene)  # what the "Settings changed" warning compares
    old = session_jobs().pop(slot, None)
    if old is not None:
        old.stop()
    session_jobs()[slot] = job


def _start(
    scene: Scene,
    spec: JobSpec,
    config: TrainConfig,
    paused: bool = False,
    seconds: float | None = None,
) -> Job | ReplayJob:
    """A new run of the page's settings: trained by a worker, or (`seconds`) the lessons'
    recording of it replayed over that many seconds (attnviz.ui.training.recorded)."""
    job = replay(PlannedJob(spec, config), seconds) if seconds else None
    if job is None:
        job = job_pool().submit(spec, config, paused=paused)
    install(scene, job)
    return job


def reveal_trained_run(step: Step) -> None:
    """Reveal of a question about the trained model (`trained = true`): the step's recorded run
    at its end becomes the page's run, unless the page already holds a run of the same settings
    that trained to its end (attnviz.ui.training.recorded)."""
    scene = registry.page(step.page).scene
    job = reveal_trained(step, scene, page_values(scene)) if scene is not None else None
    if job is None:
        return
    held = current_job(scene)
    if held is not None and held.spec == job.spec and held.poll().status == RunStatus.DONE:
        return
    install(scene, job)


RUNNING_POLL = 0.5  # seconds between the live fragment's reruns while a run steps
QUEUED_POLL = 2.0  # … while it waits in the queue
START_NOTE = (  # one line, so that the untrained maps start high in the first screen
    ":material/play_circle: Press **Start** to train. Below: the untrained model (step 0)."
)
ANSWER_WAIT = 2.0  # seconds Pause / Resume wait for the worker's answer, so that this very
# rerun draws the new status and button (a rerun that still read the old status stopped polling
# while paused, or kept showing "paused" after a Resume until some other rerun)


def _pause(scene: Scene) -> None:
    job = current_job(scene)
    if job is not None:
        job.pause(wait=ANSWER_WAIT)


def _resume(scene: Scene) -> None:
    job = current_job(scene)
    if job is not None:
        job.resume(wait=ANSWER_WAIT)


def _step(scene: Scene, spec: JobSpec, config: TrainConfig) -> None:
    """One step of the run; a new (paused) run when there is none, it is over, or it was
    started with other settings than the page's."""
    job = current_job(scene)
    if job is None or job.poll().finished or job.spec != spec:
        job = _start(scene, spec, config, paused=True)
    job.step()


def _stop(scene: Scene) -> None:
    job = current_job(scene)
    if job is not None:
        job.stop()


def drop_run(scene: Scene) -> None:
    """Stop the page's run in this session and forget it (Reset; a lesson step with other
    settings than the run's): the page shows its untrained model and Start."""
    job = session_jobs().pop(_slot(scene.table.prefix), None)
    if job is not None:
        job.stop()


def _buttons(
    live: bool, paused: bool, none: bool, run: tuple, refused: bool, seconds: float | None
) -> dict:
    """{widget key suffix: (label, icon, callback, args, disabled, help)} of the five buttons
    (`none`: no run yet; `refused`: the settings have problems; `seconds`: Start replays the
    recorded run over that long)."""
    return {
        "start": ("Start", "play_arrow", _start, (*run, False, seconds), refused, None),
        # two widgets, not one relabelled: a click delivered again after the rerender (see the
        # module docstring) still reaches the callback of the button that was pressed
        "resume" if paused else "pause": (
            "Resume" if paused else "Pause",
            "play_arrow" if paused else "pause",
            _resume if paused else _pause,
            (),
            not live,
            None,
        ),
        "step": ("Step", "skip_next", _step, run, refused, "Pause and take exactly one step"),
        "stop": ("Stop", "stop", _stop, (), not live, None),
        "reset": ("Reset", "restart_alt", drop_run, (), none, None),
    }


def controls(scene: Scene, spec: JobSpec, config: TrainConfig, problems: list[str]) -> None:
    """The five buttons; `problems` (bad settings) disable Start and Step with a message."""
    key = scene.table.prefix
    job = current_job(scene)
    state = job.poll() if job else None
    live = state is not None and not state.finished
    paused = state is not None and state.status == RunStatus.PAUSED
    # each button as wide as its label; the stage draws the row compact and, during a run and
    # after it, without the pace (static/stage.css): the status line takes its row, and the
    # views stay where they were (Reset brings the pace back for the next replay)
    ran = "_live" if job is not None else ""
    row = st.container(horizontal=True, gap="small", key=f"{key}_run_row{ran}")
    recording = on_stage(PlannedJob(spec, config))  # presenter mode, a recorded step
    seconds = pace(scene) if recording is not None else None
    buttons = _buttons(live, paused, job is None, (spec, config), bool(problems), seconds)
    token = uuid.uuid4().hex  # this render's clicks
    space = "pause" if live and not paused else "resume" if live else "start"  # Space's button
    for name, (label, icon, callback, args, disabled, tip) in buttons.items():
        row.button(
            label,
            icon=f":material/{icon}:",
            key=f"{key}_{name}",
            on_click=_once,
            args=(key, f"{token}:{name}", callback, scene, *args),
            disabled=disabled,
            help=tip,
            type="primary" if name == space else "secondary",  # what comes next: Start, Pause…
            width="content",
            shortcut="Space" if name == space else None,
            wrap=False,  # the row wraps a whole button to the next line, never a label
        )
    with row:
        if recording is not None:
            pace_control(scene)
        keyboard_focus()  # Space works on a page just opened, before any click
    for problem in problems:
        st.error(problem)


def training_panel(
    scene: Scene,
    planned: PlannedJob,
    draw_live: DrawLive,
    problems: list[str] | None = None,
    buttons_in: Any = None,
    model_name: str = "",
    curves_last: bool = False,
) -> None:
    """Buttons, then the live fragment (see the module docstring). `buttons_in`: a container the
    page made earlier (e.g. above its settings, so Start is in the first screen); the buttons
    are drawn there instead of here. `model_name`: what the curves call the run's own model when
    it trains a companion beside it (the vision page's "ViT" beside its CNN). `curves_last`: the
    curves under the page's views, so that after a run its result is in the first screen."""
    job_pool()  # start the fork server (and its imports) now, so that the first Start is quick
    spec = planned.spec
    with buttons_in if buttons_in is not None else st.container():
        controls(scene, spec, planned.train, problems or [])
    job = current_job(scene)
    running = job is not None and job.poll().active
    queued = running and job.state.status == "queued"

    def live() -> None:
        if job is None:
            st.markdown(START_NOTE)
            draw_step_zero(scene.table.prefix, spec, planned.train.steps, model_name)
            draw_live(LiveRun(None, None, spec))
            return
        slot = _slot(scene.table.prefix)
        state = draw_run(scene, job, spec, draw_live, slot, model_name, curves_last)
        if running and not state.active:
            st.rerun()  # the run ended: redraw the page once so polling stops
        elif queued and state.status != "queued":
            st.rerun()  # a worker took it: poll at the running pace from now on

    # a queued run only waits for its place, so it asks less often (a hall of queued tabs
    # polling twice a second cost the server CPU that running tabs and other pages needed)
    here.fragment(live, run_every=(QUEUED_POLL if queued else RUNNING_POLL) if running else None)()
