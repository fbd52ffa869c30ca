"""The code that runs inside a training worker process (attnviz.training.jobs starts it).

`worker_main` imports the factory, builds the Trainable and a Trainer, then steps while not
paused, obeying commands ("pause", "resume", "step", "stop") from one queue and sending
progress messages (increments of the history, new snapshots, recent steps/s) on another.
It imports torch and the Trainer only: no Streamlit, so a worker starts quickly.
"""

from __future__ import annotations

import importlib
import queue
import time

from attnviz.training.trainer import TrainConfig, Trainer

SEND_EVERY = 0.1  # seconds between progress messages while running


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
        self.rate, self.rate_mark = 0.0, (self.start, 0)  # recent steps/s, from (time, step)

    def run(self) -> None:
        self.send(force=True)
        while self.trainer.status == "running":
            if time.perf_counter() - self.start > self.cap:  # paused time counts too
                self.trainer.stop(f"stopped at the time cap of {self.cap:.0f} s")
                break
            if not self.obey(block=self.paused):
                continue
            if not self.paused:
                self.trainer.step()
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
        mark_time, mark_step = self.rate_mark
        if status == "running" and now - mark_time >= 0.5:
            self.rate = (t.step_count - mark_step) / (now - mark_time)
            self.rate_mark = (now, t.step_count)
        elif status != "running":
            self.rate_mark = (now, t.step_count)  # restart the measurement after a pause
        self.events.put(
            {
                "kind": "progress",
                "status": status,
                "reason": t.reason,
                "step": t.step_count,
                "steps_per_s": self.rate if self.rate else t.steps_per_second,
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
