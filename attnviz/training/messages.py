"""What crosses the process boundary between the server and a training worker, as types.

    RunStatus     the lifecycle of a run (a str enum: `RunStatus.DONE == "done"`)
    Command       server → worker: pause, resume, step, stop
    Evaluation    one evaluation of the Trainable (validation loss and metrics at a step, and
                  any further named numbers in `extra`)
    Progress      worker → server: the status, and what happened since the last message
    WorkerError   worker → server: the worker failed (the exception's text)
    WorkerArgs    everything a worker process is started with

Torch-free, so figures and pages can read them. Everything here is picklable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from attnviz.training.snapshot import Snapshot


class RunStatus(StrEnum):
    QUEUED = "queued"
    STARTING = "starting"
    RUNNING = "running"
    PAUSED = "paused"
    DONE = "done"
    STOPPED_EARLY = "stopped early"
    DIVERGED = "diverged"
    STOPPED = "stopped"
    ERROR = "error"

    @property
    def terminal(self) -> bool:
        """The run is over: it will never take another step."""
        return self in _TERMINAL

    @property
    def active(self) -> bool:
        """The run is waiting to start or stepping on its own (the page should poll it)."""
        return self in (RunStatus.QUEUED, RunStatus.STARTING, RunStatus.RUNNING)


_TERMINAL = frozenset(
    {
        RunStatus.DONE,
        RunStatus.STOPPED_EARLY,
        RunStatus.DIVERGED,
        RunStatus.STOPPED,
        RunStatus.ERROR,
    }
)


class Command(StrEnum):
    PAUSE = "pause"
    RESUME = "resume"
    STEP = "step"  # one step while paused; acknowledged by a Progress with ack=True
    STOP = "stop"


@dataclass(frozen=True)
class Evaluation:
    step: int
    train_loss: float
    val_loss: float
    train_metric: float
    val_metric: float
    extra: dict[str, float] = field(default_factory=dict)  # any further numbers, by name

    @classmethod
    def from_result(cls, step: int, result: dict[str, float]) -> Evaluation:
        """From a `Trainable.evaluate()` dict (train_loss, val_loss, train_metric, val_metric;
        any other key, e.g. "val_sequence_accuracy", goes to `extra`)."""
        return cls(
            step,
            float(result.get("train_loss", float("nan"))),
            float(result["val_loss"]),
            float(result["train_metric"]),
            float(result["val_metric"]),
            {k: float(v) for k, v in result.items() if k not in _CORE},
        )


_CORE = frozenset({"train_loss", "val_loss", "train_metric", "val_metric"})


@dataclass(frozen=True)
class Progress:
    """The worker's state now, and the steps, evaluations and snapshots since its last message."""

    status: RunStatus
    reason: str
    step: int
    steps_per_s: float
    metric_name: str
    steps: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)  # the batch loss of each of `steps`
    evaluations: list[Evaluation] = field(default_factory=list)
    snapshots: list[tuple[int, Snapshot]] = field(default_factory=list)
    ack: bool = False  # answers a Command.STEP


@dataclass(frozen=True)
class WorkerError:
    reason: str  # "ExceptionType: message", at most 500 characters


@dataclass(frozen=True)
class WorkerArgs:
    """What `worker_main` is started with. `spec` is a JobSpec (it builds the Trainable)."""

    spec: Any
    config: Any  # training.trainer.TrainConfig
    commands: Any  # a multiprocessing Queue of Command
    events: Any  # a multiprocessing Queue of Progress | WorkerError
    threads: int = 1
    time_cap: float = 600.0
    start_paused: bool = False
