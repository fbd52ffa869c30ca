"""Run Trainers in worker processes from a bounded pool, and stream their progress back.

Never in a thread of the Streamlit server: a training loop there shares the GIL with every
user's reruns (DESIGN, "Live training"). A job is described by plain, picklable data:

    pool = JobPool(max_workers=2)
    job = pool.submit("attnviz.kernel_task:build_trainable", spec, TrainConfig(...))
    state = job.poll()            # JobState: status, step, history, latest snapshot, queue position
    job.pause(); job.step(); job.resume(); job.stop()

The worker imports the factory ("module:function"), builds the Trainable from `spec`, and runs
a Trainer. Workers come from a "forkserver" context that preloads torch (never a fork of the
server); each sets torch.set_num_threads. Jobs beyond `max_workers` wait in a queue and report
their position; the queue advances whenever the pool is polled. A job stops at its time cap,
when stopped, or when its worker raises (the traceback's last line comes back as the reason).
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import os
import queue
import sys
import threading
import time
import types
from contextlib import contextmanager
from dataclasses import dataclass, field

from attnviz.training import TERMINAL, History, TrainConfig, Trainer

DEFAULT_TIME_CAP = 600.0
SEND_EVERY = 0.1  # seconds between progress messages while running


@dataclass
class JobState:
    status: str = (
        "queued"  # queued, starting, running, paused, done, stopped early, diverged, stopped, error
    )
    reason: str = ""
    step: int = 0
    total_steps: int = 0
    steps_per_s: float = 0.0
    queue_position: int = 0
    metric_name: str = "metric"
    history: History = field(default_factory=History)
    snapshots: list[tuple[int, dict]] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return self.status in ("queued", "starting", "running")

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL

    @property
    def latest(self) -> dict | None:
        return self.snapshots[-1][1] if self.snapshots else None


def _load_factory(path: str):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def worker_main(
    factory: str,
    spec,
    config: TrainConfig,
    commands,
    events,
    threads: int,
    cap: float,
    paused: bool,
) -> None:
    """The worker process: build, then step while not paused, obeying commands."""
    import torch

    torch.set_num_threads(threads)
    try:
        trainer = Trainer(_load_factory(factory)(spec), config)
        _WorkerLoop(trainer, commands, events, cap, paused).run()
    except Exception as err:  # any failure comes back as a message, never a hang
        events.put({"kind": "error", "reason": f"{type(err).__name__}: {err}"[:500]})


class _WorkerLoop:
    def __init__(self, trainer: Trainer, commands, events, cap: float, paused: bool):
        self.trainer, self.commands, self.events = trainer, commands, events
        self.cap, self.paused, self.start = cap, paused, time.perf_counter()
        self.sent_steps = self.sent_evals = self.sent_snaps = 0
        self.last_send = 0.0

    def run(self) -> None:
        self.send(force=True)
        while self.trainer.status == "running":
            if not self.obey(block=self.paused):
                continue
            if not self.paused:
                self.trainer.step()
            if time.perf_counter() - self.start > self.cap:
                self.trainer.stop(f"stopped at the time cap of {self.cap:.0f} s")
            self.send()
        self.send(force=True)

    def obey(self, block: bool) -> bool:
        """Handle pending commands; False when a paused single step was just taken."""
        try:
            cmd = self.commands.get(timeout=0.2) if block else self.commands.get_nowait()
        except queue.Empty:
            return not block
        if cmd in ("pause", "resume"):
            self.paused = cmd == "pause"
            self.send(force=True)
        elif cmd == "stop":
            self.trainer.stop()
        elif cmd == "step":
            self.trainer.step()
            self.send(force=True, ack=True)
            return False
        return True

    def send(self, force: bool = False, ack: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last_send < SEND_EVERY:
            return
        t, h = self.trainer, self.trainer.history
        status = t.status if t.status != "running" else ("paused" if self.paused else "running")
        self.events.put(
            {
                "kind": "progress",
                "status": status,
                "reason": t.reason,
                "step": t.step_count,
                "steps_per_s": t.steps_per_second,
                "ack": ack,
                "metric_name": t.task.metric_name,
                "history": h.since(self.sent_steps, self.sent_evals),
                "snapshots": t.snapshots[self.sent_snaps :],
            }
        )
        self.sent_steps, self.sent_evals, self.sent_snaps = (
            len(h.step),
            len(h.eval_step),
            len(t.snapshots),
        )
        self.last_send = now


class Job:
    """The server-side handle of one training run."""

    def __init__(self, pool: JobPool, factory: str, spec, config: TrainConfig, paused: bool):
        self.pool, self.factory, self.spec, self.config = pool, factory, spec, config
        self.state = JobState(total_steps=config.steps)
        self.start_paused = paused
        self.process: mp.Process | None = None
        self.commands = pool.context.Queue()
        self.events = pool.context.Queue()
        self.lock = threading.Lock()

    def launch(self) -> None:
        args = (
            self.factory,
            self.spec,
            self.config,
            self.commands,
            self.events,
            self.pool.threads_per_worker,
            self.pool.time_cap,
            self.start_paused,
        )
        self.process = self.pool.context.Process(target=worker_main, args=args, daemon=True)
        with _main_hidden():
            self.process.start()
        self.state.status = "starting"

    def poll(self) -> JobState:
        """Drain the worker's messages into `state` (and let the pool start queued jobs)."""
        self.pool.refresh()
        with self.lock:
            self._drain()
        return self.state

    def _drain(self, until_ack: float = 0.0) -> bool:
        deadline = time.perf_counter() + until_ack
        while True:
            try:
                msg = (
                    self.events.get(timeout=max(0.0, deadline - time.perf_counter()))
                    if until_ack
                    else self.events.get_nowait()
                )
            except queue.Empty:
                break
            acked = self._apply(msg)
            if until_ack and acked:
                return True
        if self.process is not None and not self.process.is_alive() and not self.state.finished:
            self.state.status = "error"
            self.state.reason = (
                self.state.reason
                or f"the worker exited unexpectedly (code {self.process.exitcode})"
            )
        return False

    def _apply(self, msg: dict) -> bool:
        s = self.state
        if msg["kind"] == "error":
            s.status, s.reason = "error", msg["reason"]
            return True
        s.status, s.reason, s.step = msg["status"], msg["reason"], msg["step"]
        s.steps_per_s, s.metric_name = msg["steps_per_s"], msg["metric_name"]
        s.history.extend(msg["history"])
        s.snapshots.extend(msg["snapshots"])
        return msg["ack"]

    def _send(self, command: str) -> None:
        if self.process is not None and self.process.is_alive():
            self.commands.put(command)

    def pause(self) -> None:
        self._send("pause")

    def resume(self) -> None:
        self._send("resume")

    def step(self, timeout: float = 30.0) -> JobState:
        """Take exactly one step (pausing first) and return once it is done."""
        self._send("pause")
        self._send("step")
        with self.lock:
            self._drain(until_ack=timeout)
        return self.state

    def stop(self) -> None:
        """Ask the worker to stop; a queued job is dropped from the queue."""
        self.pool.forget(self)
        if self.process is None:
            self.state.status, self.state.reason = "stopped", "stopped before it started"
            return
        self._send("stop")
        self.process.join(timeout=3)
        if self.process.is_alive():
            self.process.terminate()
        self.poll()
        if not self.state.finished:
            self.state.status, self.state.reason = "stopped", "stopped by the user"


@contextmanager
def _main_hidden():
    """Hide __main__ while starting processes.

    Streamlit runs each page as a module named __main__ (with __file__ = the page), and
    multiprocessing would import that file in the fork server and in every worker, running the
    app bare there. Workers only need the factory's module.
    """
    real = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if real is not None:
            sys.modules["__main__"] = real


def _start_forkserver_without_main() -> None:
    from multiprocessing import forkserver

    with _main_hidden():
        forkserver.ensure_running()


class JobPool:
    """At most `max_workers` jobs run at once; later ones wait in order."""

    def __init__(
        self,
        max_workers: int | None = None,
        time_cap: float = DEFAULT_TIME_CAP,
        threads_per_worker: int = 1,
    ):
        self.max_workers = max_workers or os.cpu_count() or 1
        self.time_cap, self.threads_per_worker = time_cap, threads_per_worker
        self.context = mp.get_context("forkserver")
        self.context.set_forkserver_preload(["torch", "attnviz.training"])
        _start_forkserver_without_main()
        self.running: list[Job] = []
        self.waiting: list[Job] = []
        self.lock = threading.RLock()

    def submit(self, factory: str, spec, config: TrainConfig, paused: bool = False) -> Job:
        job = Job(self, factory, spec, config, paused)
        with self.lock:
            self.waiting.append(job)
        self.refresh()
        return job

    def refresh(self) -> None:
        with self.lock:
            self.running = [j for j in self.running if j.process.is_alive()]
            while self.waiting and len(self.running) < self.max_workers:
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
        self.refresh()

    def shutdown(self) -> None:
        for job in list(self.running) + list(self.waiting):
            job.stop()
