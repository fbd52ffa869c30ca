"""What every live-training topic shares, written once: the protocol of its job spec (build the
Trainable, restore a snapshot's models), the untrained snapshot a page shows before Start, a
preset's TrainConfig, and a run trained to its end in this process (tests, notebooks, handouts;
the server runs jobs in worker processes instead: attnviz.training.jobs).

    class VisionJobSpec:                      # frozen dataclass with a `device` field
        snapshot_type = VisionSnapshot        # its snapshots (attnviz.training.snapshot)
        def build(self) -> VisionTrainable: ...
        def restore(self, snapshot: VisionSnapshot) -> TrainedVision: ...  # CPU, eval mode

    untrained(spec)                 # the step-0 snapshot, seeded as the run will be (cached)
    restored(spec, snapshot)        # spec.restore(snapshot), once per snapshot and spec (cached)
    started(spec)                   # RunSoFar at step 0: that snapshot and one evaluation
    at_start(spec)                  # RunSoFar at step 0 without the evaluation (no curves)
    so_far(history, snapshots, step)  # RunSoFar: a run as it stood at a timeline step
    trained = train(Job(spec, config))  # -> TrainedRun: history, snapshots, the last snapshot
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

import torch

from attnviz.topics.scene import Job
from attnviz.training.history import History
from attnviz.training.messages import Evaluation
from attnviz.training.snapshot import Snapshot
from attnviz.training.trainer import Trainable, TrainConfig, Trainer

MAX_RESTORED = 16  # restored snapshots kept (restored), every session's together
_RESTORED: OrderedDict[tuple[int, Any], tuple[weakref.ref, Any]] = OrderedDict()
_RESTORED_LOCK = threading.Lock()


@runtime_checkable
class LiveSpec(Protocol):
    """A live-training page's job spec (a frozen dataclass with a `device` field)."""

    device: str
    snapshot_type: type[Snapshot]

    def build(self) -> Trainable: ...
    def restore(self, snapshot: Any) -> Any: ...


@dataclass(frozen=True)
class RunSoFar:
    """A run's result as it stood at one step: its evaluations and snapshots up to it, what its
    metric is called, and whether it is the untrained model before Start (views say "Step 0")."""

    history: History
    snapshots: tuple[tuple[int, Snapshot], ...]  # (step, snapshot), in order
    metric: str = "metric"
    untrained: bool = False

    @property
    def last(self) -> tuple[int, Snapshot]:
        """The last (step, snapshot)."""
        return self.snapshots[-1]

    @property
    def snapshot(self) -> Snapshot:
        """The last snapshot (as TrainedRun's)."""
        return self.snapshots[-1][1]


@functools.lru_cache(maxsize=32)
def untrained(spec: LiveSpec) -> Snapshot:
    """The snapshot as a run starts (step 0, seeded as the run is), computed on the CPU."""
    return replace(spec, device="cpu").build().snapshot()


def restored(spec: LiveSpec, snapshot: Snapshot) -> Any:
    """`spec.restore(snapshot)`: the snapshot's models rebuilt on the CPU, once per snapshot
    object and spec, and shared read-only (a widget move after a run restores nothing again).
    Keyed on the snapshot itself: an entry whose snapshot is gone is never read for a new
    snapshot that reuses its id()."""
    key = (id(snapshot), spec)
    with _RESTORED_LOCK:
        found = _RESTORED.get(key)
        if found is not None and found[0]() is snapshot:
            _RESTORED.move_to_end(key)
            return found[1]
    models = spec.restore(snapshot)
    with _RESTORED_LOCK:
        _RESTORED[key] = (weakref.ref(snapshot), models)
        while len(_RESTORED) > MAX_RESTORED:
            _RESTORED.popitem(last=False)
    return models


@functools.lru_cache(maxsize=16)
def started(spec: LiveSpec) -> RunSoFar:
    """A run's result before Start (computed on the CPU, cached): one evaluation and one snapshot
    at step 0, seeded as the run will be; the global random generator is left as it was."""
    with torch.random.fork_rng(devices=[]):
        trainable = replace(spec, device="cpu").build()
        history = History()
        with torch.no_grad():  # as the Trainer evaluates
            history.add_evaluation(Evaluation.from_result(0, trainable.evaluate()))
            snapshot = trainable.snapshot()
    metric = trainable.metric_name  # what the curves call its metric
    return RunSoFar(history, ((0, snapshot),), metric, untrained=True)


def at_start(spec: LiveSpec) -> RunSoFar:
    """The untrained model before Start, without an evaluation (no curves to draw)."""
    return RunSoFar(History(), ((0, untrained(spec)),), untrained=True)


def so_far(history: History, snapshots: list[tuple[int, Snapshot]], step: int | None) -> RunSoFar:
    """A run's result as it stood at `step` (None: its latest): the evaluations and snapshots up
    to it, as `started` gives step 0's (the timeline of the pages that draw a whole run)."""
    if step is not None:
        snapshots = [(s, snap) for s, snap in snapshots if s <= step]
        keep = [i for i, s in enumerate(history.eval_step) if s <= step]
        cut = History()
        for name in ("eval_step", "val_loss", "train_metric", "val_metric", "extra"):
            setattr(cut, name, [getattr(history, name)[i] for i in keep])
        history = cut
    return RunSoFar(history, tuple(snapshots))


def preset_train(
    steps: int,
    lr: float = 3e-3,
    *,
    optimizer: str = "adam",
    batch_size: int = 64,
    schedule: str = "cosine",
    every: int = 50,
    snapshot_every: int | None = None,
    **more: Any,
) -> TrainConfig:
    """A preset's TrainConfig: mini-batches, evaluations every `every` steps and snapshots every
    `snapshot_every` (None: as often as evaluations)."""
    return TrainConfig(
        optimizer=optimizer,
        lr=lr,
        batch_mode="minibatch",
        batch_size=batch_size,
        steps=steps,
        schedule=schedule,
        eval_every=every,
        snapshot_every=snapshot_every or every,
        **more,
    )


@dataclass
class TrainedRun:
    """A job trained to its end in this process."""

    job: Job
    history: History
    snapshots: list[tuple[int, Snapshot]]  # (step, snapshot), in order
    status: str  # the Trainer's RunStatus value ("done", "diverged", "stopped early")
    reason: str
    metric_name: str = "metric"  # what the curves call the run's metric

    @property
    def snapshot(self) -> Snapshot:
        """The last snapshot (the trained model's)."""
        return self.snapshots[-1][1]

    def restore(self) -> Any:
        """The trained models of the last snapshot (the spec's `restore`)."""
        return restored(self.job.spec, self.snapshot)


def train(
    job: Job,
    threads: int | None = None,
    on_eval: Callable | None = None,
    stop_at: int | None = None,
) -> TrainedRun:
    """Train `job` here (the worker's loop without the process) to its end, or only to step
    `stop_at` (the run as it stands then: same schedule, same snapshots so far). Seeded as the
    page's run is, so a test's trained model is the one a person trains with the same settings."""
    if threads:
        torch.set_num_threads(threads)
    callbacks = {"eval": [on_eval]} if on_eval else None
    trainer = Trainer(job.spec.build(), job.train, callbacks=callbacks).run(stop_at)
    snapshots = list(trainer.snapshots)
    if not snapshots or snapshots[-1][0] != trainer.step_count:
        snapshots.append((trainer.step_count, trainer.task.snapshot()))
    return TrainedRun(
        job,
        trainer.history,
        snapshots,
        trainer.status.value,
        trainer.reason,
        trainer.task.metric_name,
    )
