"""A recorded run played back as a live run looks, at a lecture's pace: the handle the training
panel reads (`poll`, `pause`, `resume`, `step`, `stop`, `spec`, `config`, `state`), as
attnviz.training.jobs.Job has it, with no worker behind it. It trains nothing, so a hall of
students following it costs the server a few list cuts per poll.

    job = ReplayJob(recording, spec, config, seconds=20)   # the whole run in 20 s
    job.poll()      # JobState: the history and snapshots up to the step the clock has reached
    ReplayJob(recording, spec, config, at_end=True)        # over already: the trained model
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from attnviz.training.history import History
from attnviz.training.jobs import JobState
from attnviz.training.messages import RunStatus
from attnviz.training.recording import Recording

REPLAYED = "replayed from a recording"  # the status line's reason while and after it plays


def history_to(history: History, step: int) -> History:
    """`history` as it stood at `step`: training steps and evaluations up to it."""
    cut = History()
    for s, loss in zip(history.step, history.train_loss, strict=True):
        if s <= step:
            cut.add_step(s, loss)
    for i, s in enumerate(history.eval_step):
        if s <= step:
            for name in ("eval_step", "val_loss", "train_metric", "val_metric", "extra"):
                getattr(cut, name).append(getattr(history, name)[i])
    return cut


class ReplayJob:
    """A recorded run replayed over `seconds` of the wall clock (`clock`: seconds, monotonic)."""

    def __init__(
        self,
        recording: Recording,
        spec: Any,
        config: Any,
        seconds: float = 20.0,
        at_end: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.recording, self.spec, self.config, self.clock = recording, spec, config, clock
        self.pace = recording.last_step / max(seconds, 1e-3)  # steps a second
        self.started = clock()
        self.offset = float(recording.last_step if at_end else 0)  # steps reached while paused
        self.paused_at: float | None = None
        self.stopped_at: int | None = None
        self.state = JobState(total_steps=recording.total_steps)
        self.poll()

    def _position(self) -> int:
        if self.stopped_at is not None:
            return self.stopped_at
        if self.paused_at is not None:
            return int(self.offset)
        return min(
            int(self.offset + (self.clock() - self.started) * self.pace), self.recording.last_step
        )

    def poll(self) -> JobState:
        """The run as it stood at the step the clock has reached."""
        step, rec, s = self._position(), self.recording, self.state
        s.step, s.metric_name, s.history = step, rec.metric_name, history_to(rec.history, step)
        s.snapshots = [(k, snap) for k, snap in rec.snapshots if k <= step]
        s.steps_per_s = 0.0 if self.paused_at is not None else self.pace
        if self.stopped_at is not None:
            s.status, s.reason = RunStatus.STOPPED, f"stopped by the user ({REPLAYED})"
        elif step >= rec.last_step:
            s.status, s.reason = RunStatus(rec.status), _reason(rec.reason)
            s.steps_per_s = 0.0
        else:
            paused = self.paused_at is not None
            s.status, s.reason = (RunStatus.PAUSED if paused else RunStatus.RUNNING), REPLAYED
        return s

    def pause(self, wait: float = 0.0) -> JobState:
        if self.paused_at is None and not self.state.finished:
            self.offset = float(self._position())
            self.paused_at = self.clock()
        return self.poll()

    def resume(self, wait: float = 0.0) -> JobState:
        if self.paused_at is not None:
            self.started, self.paused_at = self.clock(), None
        return self.poll()

    def step(self, timeout: float = 30.0) -> JobState:
        """Pause, then one step further (to the next recorded training step)."""
        self.pause()
        after = [s for s in self.recording.history.step if s > self.offset]
        self.offset = float(after[0] if after else self.recording.last_step)
        return self.poll()

    def stop(self) -> None:
        if not self.poll().finished:
            self.stopped_at = self._position()
        self.poll()


def _reason(recorded: str) -> str:
    return f"{recorded} ({REPLAYED})" if recorded else REPLAYED
