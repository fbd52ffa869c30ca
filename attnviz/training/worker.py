"""The code that runs inside a training worker process (attnviz.training.jobs starts it).

`worker_main(args)` builds the Trainable from `args.spec.build()` and a Trainer whose "step",
"eval" and "snapshot" callbacks fill an outbox; it then steps while not paused, obeying
Commands (pause, resume, step, stop) from one queue, at most `config.max_steps_per_s` steps a
second when that cap is set (slow motion: it waits for commands between steps), and sending a
`Progress` (status, and the outbox: new steps, evaluations, snapshots) on another at most every
SEND_EVERY seconds, and at once after every command. A failure comes back as a `WorkerError`.
It imports torch and the Trainer only: no Streamlit, so a worker starts quickly.
`local_worker_main(args)` is the same in a local process that ends the moment the server that
started it is gone, even killed: no worker trains on (and keeps its fork server alive) after it.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import select
import threading
import time

from attnviz.training.messages import Command, Progress, RunStatus, WorkerArgs, WorkerError
from attnviz.training.pace import pace_delay, pace_mark
from attnviz.training.snapshot import Snapshot
from attnviz.training.trainer import Trainer

SEND_EVERY = 0.1  # seconds between progress messages while running


def local_worker_main(args: WorkerArgs) -> None:
    """`worker_main` in a local process that exits with the server (LocalProcesses starts it)."""
    server = multiprocessing.parent_process()  # the server, not the fork server that forked us
    if server is not None:
        watch = threading.Thread(target=_exit_with, args=(server.pid,), daemon=True)
        watch.start()
    worker_main(args)


def _exit_with(pid: int) -> None:
    """End this process (at once, whatever its main thread does) when process `pid` is gone.

    A killed server leaves its workers to their fork server, and a worker keeps that alive too
    (multiprocessing hands every worker the fork server's "alive" pipe), so both would train on
    and wait forever for a reader; this thread ends them."""
    try:
        server = os.pidfd_open(pid)  # Linux ≥ 5.3: readable once the process has exited
    except (AttributeError, OSError):  # elsewhere (or gone already): look every second
        while _exists(pid):
            time.sleep(1.0)
    else:
        select.select([server], [], [])
    os._exit(0)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process by now; still there
        pass
    return True


def worker_main(args: WorkerArgs) -> None:
    """The worker process: build, then step while not paused, obeying commands."""
    import torch

    torch.set_num_threads(args.threads)
    try:
        outbox = _Outbox()
        trainer = Trainer(args.spec.build(), args.config, outbox.callbacks())
        _WorkerLoop(trainer, outbox, args).run()
    except Exception as err:  # any failure comes back as a message, never a hang
        args.events.put(WorkerError(f"{type(err).__name__}: {err}"[:500]))


class _Outbox:
    """What the Trainer reported through its callbacks since the last message."""

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.losses: list[float] = []
        self.evaluations: list = []
        self.snapshots: list[tuple[int, Snapshot]] = []

    def callbacks(self) -> dict[str, list]:
        return {"step": [self.on_step], "eval": [self.on_eval], "snapshot": [self.on_snapshot]}

    def on_step(self, trainer: Trainer) -> None:
        self.steps.append(trainer.step_count)
        self.losses.append(trainer.last_loss)

    def on_eval(self, trainer: Trainer) -> None:
        self.evaluations.append(trainer.last_evaluation)

    def on_snapshot(self, trainer: Trainer) -> None:
        self.snapshots.append(trainer.snapshots[-1])

    def take(self) -> dict[str, list]:
        """The contents as Progress fields, emptying the outbox."""
        out = {
            "steps": self.steps,
            "train_loss": self.losses,
            "evaluations": self.evaluations,
            "snapshots": self.snapshots,
        }
        self.__init__()
        return out


class _WorkerLoop:
    def __init__(self, trainer: Trainer, outbox: _Outbox, args: WorkerArgs):
        self.trainer, self.outbox = trainer, outbox
        self.commands, self.events = args.commands, args.events
        self.cap, self.paused, self.start = args.time_cap, args.start_paused, time.perf_counter()
        self.last_send = 0.0
        self.rate, self.rate_mark = 0.0, (self.start, 0)  # recent steps/s, from (time, step)
        self.speed_cap = trainer.config.max_steps_per_s
        self.pace_mark = (self.start, 0)  # slow motion counts steps from (time, step)

    def run(self) -> None:
        self.send(force=True)
        while self.trainer.status == RunStatus.RUNNING:
            if time.perf_counter() - self.start > self.cap:  # paused time counts too
                self.trainer.stop(f"stopped at the time cap of {self.cap:.0f} s")
                break
            wait = 0.0 if self.paused else self.pace_wait()
            if not self.obey(block=self.paused or wait > 0, timeout=min(wait, 0.2) or 0.2):
                continue  # a command, or slow motion's wait, came first: look again
            if not self.paused and self.pace_wait() <= 0:
                self.trainer.step()
            self.send()
        self.send(force=True)

    def pace_wait(self) -> float:
        """Seconds until slow motion allows the next step (0 without a cap)."""
        now, step = time.perf_counter(), self.trainer.step_count
        self.pace_mark = pace_mark(self.pace_mark, now, step, self.speed_cap)
        mark_time, mark_step = self.pace_mark
        return pace_delay(step - mark_step, now - mark_time, self.speed_cap)

    def obey(self, block: bool, timeout: float = 0.2) -> bool:
        """Handle pending commands, waiting up to `timeout` s for one when `block`; False when
        nothing may step yet (a blocking wait ran out, or a paused single step was just taken)."""
        try:
            cmd = self.commands.get(timeout=timeout) if block else self.commands.get_nowait()
        except queue.Empty:
            return not block
        if cmd in (Command.PAUSE, Command.RESUME):
            self.paused = cmd == Command.PAUSE
            self.pace_mark = (time.perf_counter(), self.trainer.step_count)
            self.send(force=True)
        elif cmd == Command.STOP:
            self.trainer.stop()
        elif cmd == Command.STEP:
            self.trainer.step()
            self.send(force=True, ack=True)
            return False
        return True

    def status(self) -> RunStatus:
        t = self.trainer
        if t.status != RunStatus.RUNNING:
            return t.status
        return RunStatus.PAUSED if self.paused else RunStatus.RUNNING

    def send(self, force: bool = False, ack: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last_send < SEND_EVERY:
            return
        t, status = self.trainer, self.status()
        mark_time, mark_step = self.rate_mark
        if status == RunStatus.RUNNING and now - mark_time >= 0.5:
            self.rate = (t.step_count - mark_step) / (now - mark_time)
            self.rate_mark = (now, t.step_count)
        elif status != RunStatus.RUNNING:
            self.rate_mark = (now, t.step_count)  # restart the measurement after a pause
        rate = self.rate or t.steps_per_second
        progress = Progress(
            status, t.reason, t.step_count, rate, t.task.metric_name, ack=ack, **self.outbox.take()
        )
        self.events.put(progress)
        self.last_send = now
