"""Run Trainers in worker processes from a bounded pool, and stream their progress back.

Never in a thread of the Streamlit server: a training loop there shares the GIL with every
user's reruns (DESIGN, "Live training"). A job is described by plain, picklable data:

    pool = JobPool(max_workers=2)                       # default: one worker per CPU core
    job = pool.submit(KernelJobSpec(...), TrainConfig(...))
    state = job.poll()    # JobState: status (RunStatus), reason, step, total_steps, steps_per_s,
                          # queue_position, metric_name, history (training.History), snapshots
    job.pause(); job.step(); job.resume(); job.stop()
    job.spec, job.config  # the settings this run was started with (never changed)

Any page can train its own model here: the spec is a frozen dataclass (never a live model) whose
`build()` returns a `training.Trainable` (attnviz.training.specs); the worker unpickles it, builds
it and runs a Trainer (the Trainable owns its device). What crosses the process boundary is typed
(attnviz.training.messages). `job.step()` pauses and returns once exactly one more step is done.
`state.snapshots`: (step, Trainable.snapshot()).

Workers come from the pool's backend (attnviz.training.backends): by default a "forkserver" context
that preloads PRELOAD (never a fork of the server), or Ray tasks on a cluster
(`pool_from_environment()` picks by ATTNVIZ_RAY_ADDRESS); each sets torch.set_num_threads. Jobs
beyond `max_workers` wait in a queue and report their position; the queue advances whenever the
pool is polled. A job stops at its time cap, when stopped, or when its worker raises (the exception
comes back as status "error" with its text).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import queue
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from attnviz.training.backends import (
    PRELOAD,  # noqa: F401  (re-exported: where it always was)
    Backend,
    LocalProcesses,
    WorkerHandle,
    backend_from_environment,
)
from attnviz.training.history import History
from attnviz.training.messages import Command, Progress, RunStatus, WorkerArgs, WorkerError
from attnviz.training.snapshot import Snapshot
from attnviz.training.specs import JobSpec, check_spec
from attnviz.training.trainer import TrainConfig

log = logging.getLogger(__name__)

DEFAULT_TIME_CAP = 600.0
STOP_GRACE = 1.0  # seconds a stopped worker has to exit before it is terminated


@dataclass
class JobState:
    status: RunStatus = RunStatus.QUEUED
    reason: str = ""
    step: int = 0
    total_steps: int = 0
    steps_per_s: float = 0.0
    queue_position: int = 0
    metric_name: str = "metric"
    history: History = field(default_factory=History)
    snapshots: list[tuple[int, Snapshot]] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return self.status.active

    @property
    def finished(self) -> bool:
        return self.status.terminal

    @property
    def latest(self) -> dict | None:
        return self.snapshots[-1][1] if self.snapshots else None


class Job:
    """The server-side handle of one training run."""

    def __init__(self, pool: JobPool, spec: JobSpec, config: TrainConfig, paused: bool):
        self.pool, self.spec, self.config = pool, spec, config
        self.state = JobState(total_steps=config.steps)
        self.start_paused = paused
        self.process: WorkerHandle | None = None
        self.commands = pool.backend.queue()
        self.events = pool.backend.queue()
        self.lock = threading.Lock()
        self.stopped: tuple[RunStatus, str] | None = None  # stop()'s verdict, kept

    def launch(self) -> None:
        args = WorkerArgs(
            self.spec,
            self.config,
            self.commands,
            self.events,
            self.pool.threads_per_worker,
            self.pool.time_cap,
            self.start_paused,
        )
        self.process = self.pool.backend.start(args)
        self.state.status = RunStatus.STARTING

    def poll(self) -> JobState:
        """Drain the worker's messages into `state` (and let the pool start queued jobs)."""
        self.pool.refresh()
        with self.lock:
            self._drain()
        return self.state

    def _drain(self, until: Callable[[Progress], bool] | None = None, timeout: float = 0.0) -> bool:
        """Apply pending messages; with `until`, wait up to `timeout` s for a message it accepts
        (an error ends the wait too). True when one came."""
        deadline = time.perf_counter() + timeout
        while True:
            try:
                msg = self.events.get(timeout=0.1) if until else self.events.get_nowait()
            except queue.Empty:
                alive = self.process is not None and self.process.is_alive()
                if until and alive and time.perf_counter() < deadline:
                    continue  # still waiting for the worker's answer
                break
            self._apply(msg)
            if until and (isinstance(msg, WorkerError) or until(msg)):
                return True
        if self.process is not None and not self.process.is_alive() and not self.state.finished:
            self._drain_dead()
        return False

    def _drain_dead(self) -> None:
        """The worker has exited: read what it flushed before exiting, else report the crash."""
        try:
            while not self.state.finished:
                self._apply(self.events.get(timeout=0.5))
        except queue.Empty:
            pass
        if not self.state.finished:
            self.state.status = RunStatus.ERROR
            self.state.reason = (
                self.state.reason
                or f"the worker exited unexpectedly (code {self.process.exitcode})"
            )

    def _apply(self, msg: Progress | WorkerError) -> None:
        """Fold one message into `state`; a job the user stopped stays stopped (a message read
        after the stop, e.g. a Ray task's late end, adds only to its history)."""
        s = self.state
        if isinstance(msg, WorkerError):
            s.status, s.reason = RunStatus.ERROR, msg.reason
        else:
            s.status, s.reason, s.step = msg.status, msg.reason, msg.step
            s.steps_per_s, s.metric_name = msg.steps_per_s, msg.metric_name
            for step, loss in zip(msg.steps, msg.train_loss, strict=True):
                s.history.add_step(step, loss)
            for evaluation in msg.evaluations:
                s.history.add_evaluation(evaluation)
            s.snapshots.extend(msg.snapshots)
        s.status, s.reason = self.stopped or (s.status, s.reason)

    def _send(self, command: Command) -> None:
        if self.process is not None and self.process.is_alive():
            self.commands.put(command)

    def pause(self, wait: float = 0.0) -> JobState:
        """Pause (a queued job will start paused); with `wait`, return once the worker says it
        is no longer running (or after `wait` s), so that the caller's poll shows the pause."""
        if self.process is None:
            self.start_paused = True
            return self.state
        self._send(Command.PAUSE)
        return self._answer(lambda msg: msg.status != RunStatus.RUNNING, wait)

    def resume(self, wait: float = 0.0) -> JobState:
        """Resume; with `wait`, return once the worker says it is no longer paused."""
        if self.process is None:
            self.start_paused = False
            return self.state
        self._send(Command.RESUME)
        return self._answer(lambda msg: msg.status != RunStatus.PAUSED, wait)

    def _answer(self, accept: Callable[[Progress], bool], wait: float) -> JobState:
        if wait > 0 and self.process.is_alive():
            with self.lock:
                self._drain(until=accept, timeout=wait)
        return self.state

    def step(self, timeout: float = 30.0) -> JobState:
        """Take exactly one step (pausing first) and return once it is done.

        A job still waiting in the queue only notes that it should start paused, and returns at
        once: it cannot step before a worker is free."""
        if self.process is None:
            self.pause()
            return self.poll()
        self._send(Command.PAUSE)
        self._send(Command.STEP)
        with self.lock:
            self._drain(until=lambda msg: msg.ack, timeout=timeout)
        return self.state

    def stop(self) -> None:
        """Ask the worker to stop; it gets STOP_GRACE s (its messages read meanwhile), then is
        terminated. A queued job leaves the queue; none starts here (the next poll starts it),
        so stopping every job at shutdown starts no worker."""
        self.pool.forget(self)
        if self.process is None:
            self.stopped = (RunStatus.STOPPED, "stopped before it started")
        else:
            self._send(Command.STOP)
            exited = self.end(time.perf_counter() + STOP_GRACE)  # an error meanwhile: the stop's
            if not exited or not self.state.finished or self.state.status == RunStatus.ERROR:
                self.state.status, self.state.reason = RunStatus.STOPPED, "stopped by the user"
            self.stopped = (self.state.status, self.state.reason)
        self.state.status, self.state.reason = self.stopped

    def read(self, timeout: float = 0.0) -> None:
        """Apply the messages waiting now (waiting up to `timeout` s for the first)."""
        with self.lock, contextlib.suppress(queue.Empty):
            msg = self.events.get(timeout=timeout) if timeout else self.events.get_nowait()
            while True:
                self._apply(msg)
                msg = self.events.get_nowait()

    def end(self, deadline: float) -> bool:
        """Wait until `deadline` for the worker to exit, reading its messages meanwhile (a worker
        cannot exit while its last messages wait in a full pipe: a run nobody polled), then
        terminate it, and kill it if that fails. True when it exited by itself."""
        while self.process.is_alive() and time.perf_counter() < deadline:
            self.read(timeout=0.05)
        exited = not self.process.is_alive()
        for end in (self.process.terminate, getattr(self.process, "kill", None)):
            if end is not None and self.process.is_alive():
                end()
                self.process.join(timeout=1)
        self.read()
        return exited


class JobPool:
    """At most `max_workers` jobs run at once (default: the backend's CPUs); the rest queue."""

    def __init__(
        self,
        max_workers: int | None = None,
        time_cap: float = DEFAULT_TIME_CAP,
        threads_per_worker: int = 1,
        backend: Backend | None = None,
    ):
        self.backend = backend or LocalProcesses()
        self.max_workers = max_workers or self.backend.capacity(threads_per_worker)
        self.time_cap, self.threads_per_worker = time_cap, threads_per_worker
        self.running: list[Job] = []
        self.waiting: list[Job] = []
        self.lock = threading.RLock()
        self.closed = False  # shut down: nothing queued starts any more
        atexit.register(_shut_down, weakref.ref(self))  # the server's exit ends its workers

    def submit(self, spec: JobSpec, config: TrainConfig, paused: bool = False) -> Job:
        """Queue a run of `spec.build()` under `config` (started paused when `paused`)."""
        check_spec(spec)
        job = Job(self, spec, config, paused)
        with self.lock:
            self.waiting.append(job)
        self.refresh()
        return job

    def refresh(self, launch: bool = True) -> None:
        """Drop exited workers, start queued jobs on free workers (when `launch`), renumber."""
        with self.lock:
            self.running = [j for j in self.running if j.process.is_alive()]
            free = launch and not self.closed
            while free and self.waiting and len(self.running) < self.max_workers:
                job = self.waiting.pop(0)
                job.launch()
                self.running.append(job)
            for position, job in enumerate(self.waiting, 1):
                job.state.queue_position = position
            for job in self.running:
                job.state.queue_position = 0

    def forget(self, job: Job) -> None:
        with self.lock:
            if job in self.waiting:
                self.waiting.remove(job)
        self.refresh(launch=False)

    def shutdown(self, grace: float = STOP_GRACE) -> None:
        """Stop all jobs (at exit too): nothing queued starts any more, each worker is asked to stop
        and all get `grace` s together (messages read meanwhile), then the rest are terminated."""
        with self.lock:
            self.closed = True
            live = [j for j in self.running if j.process.is_alive()]
            dropped, self.waiting = self.waiting, []
        for job in dropped:
            job.stop()
        for job in live:
            job._send(Command.STOP)
        deadline = time.perf_counter() + grace
        while time.perf_counter() < deadline and any(j.process.is_alive() for j in live):
            for job in live:
                job.read()
            time.sleep(0.02)
        for job in live:
            if not job.end(deadline) or not job.state.finished:
                job.state.status, job.state.reason = RunStatus.STOPPED, "the server stopped"
        self.refresh(launch=False)


def _shut_down(pool_ref: weakref.ref) -> None:
    """At exit: end the workers of a pool still alive, then its backend's own processes (a
    failure, e.g. Ray already disconnected, is logged)."""
    try:
        if (pool := pool_ref()) is not None:
            pool.shutdown()
            getattr(pool.backend, "close", lambda: None)()
    except Exception as err:
        log.debug("training pool shutdown at exit: %s", err)


WORKERS_VARIABLE = "ATTNVIZ_TRAINING_WORKERS"


def pool_from_environment(environ: Mapping[str, str] | None = None, **options: Any) -> JobPool:
    """The server's pool: on the Ray cluster at ATTNVIZ_RAY_ADDRESS when that is set and
    answers, else in local processes (see attnviz.training.backends). At most
    ATTNVIZ_TRAINING_WORKERS runs at once when that is set (deploy/start.sh divides the cores
    among its replicas with it), else the backend's capacity. `options` go to JobPool."""
    environ = os.environ if environ is None else environ
    workers = training_workers(environ.get(WORKERS_VARIABLE, ""))
    if workers and "max_workers" not in options:
        options["max_workers"] = workers
    return JobPool(backend=backend_from_environment(environ), **options)


def training_workers(text: str) -> int | None:
    """A positive worker count from the variable's text; None (with a warning) otherwise."""
    if not text.strip():
        return None
    count = int(text) if text.strip().lstrip("-").isdigit() else 0
    if count < 1:
        log.warning("%s=%r is not a positive whole number; ignored", WORKERS_VARIABLE, text)
        return None
    return count
