"""A model-agnostic training loop: optimizers, batch modes, history, snapshots, stopping rules.

The Trainer knows nothing about models. It drives a `Trainable` (anything with `parameters()`,
`loss(batch_indices)`, `evaluate()`, `snapshot()`, `n_train` and `metric_name`) and is extended by
callbacks ("step", "eval", "snapshot": functions of the Trainer, called after each step with
`last_loss` set, after each evaluation with `last_evaluation` set, after each snapshot with
`snapshots[-1]` the new one). It stops on its own, with `status` (a RunStatus) and a human `reason`,
when the loss diverges ("diverged": NaN/inf, or above max(10, divergence_factor × the first loss),
i.e. 100× its start by default), when validation stops improving for `patience` evaluations
("stopped early"), or after `steps` steps ("done"). The device is the Trainable's business (it moves
its own tensors; put the name in its spec).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor

from attnviz.training.history import History
from attnviz.training.messages import Evaluation, RunStatus
from attnviz.training.snapshot import Snapshot

OPTIMIZERS = ("sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam", "adamw")
BATCH_MODES = ("full", "minibatch", "single")
SCHEDULES = ("constant", "cosine")


@dataclass
class TrainConfig:
    optimizer: str = "adam"
    lr: float = 0.05
    momentum: float = 0.9  # for momentum / nesterov / rmsprop
    batch_mode: str = "full"  # full batch, mini-batch of batch_size, or a single example
    batch_size: int = 32
    steps: int = 300
    weight_decay: float = 0.0
    schedule: str = "constant"  # learning rate: constant, or cosine decay to 0 over `steps`
    grad_clip: float = 0.0  # max gradient norm; 0 = off
    patience: int = 0  # evaluations without validation improvement before stopping; 0 = off
    eval_every: int = 10
    snapshot_every: int = 20
    divergence_factor: float = 100.0  # loss above factor × first loss (and above 10) = diverged
    seed: int = 0
    max_steps_per_s: float = 0.0  # slow motion, applied by the worker (pace.py); 0 = no cap

    def problems(self) -> list[str]:
        out = []
        if self.optimizer not in OPTIMIZERS:
            out.append(f"optimizer must be one of {', '.join(OPTIMIZERS)}")
        if self.batch_mode not in BATCH_MODES:
            out.append(f"batch mode must be one of {', '.join(BATCH_MODES)}")
        if self.schedule not in SCHEDULES:
            out.append(f"the schedule must be one of {', '.join(SCHEDULES)}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            out.append("the learning rate must be a positive number")
        if self.steps < 1 or self.batch_size < 1 or self.eval_every < 1 or self.snapshot_every < 1:
            out.append("steps, batch size and intervals must be at least 1")
        if not (self.max_steps_per_s >= 0 and math.isfinite(self.max_steps_per_s)):
            out.append("the speed cap must be 0 (no cap) or a positive number of steps per second")
        return out


class Trainable(Protocol):
    n_train: int
    metric_name: str

    def parameters(self) -> list[Tensor]: ...
    def loss(self, batch: Tensor) -> Tensor: ...
    def evaluate(self) -> dict[str, float]: ...
    def snapshot(self) -> Snapshot: ...


def make_optimizer(name: str, params: list[Tensor], cfg: TrainConfig) -> torch.optim.Optimizer:
    """Seed 003's optimizers by name."""
    wd = cfg.weight_decay
    if name == "sgd":
        return torch.optim.SGD(params, lr=cfg.lr, weight_decay=wd)
    if name in ("momentum", "nesterov"):
        return torch.optim.SGD(
            params, lr=cfg.lr, momentum=cfg.momentum, nesterov=name == "nesterov", weight_decay=wd
        )
    if name == "adagrad":
        return torch.optim.Adagrad(params, lr=cfg.lr, weight_decay=wd)
    if name == "rmsprop":
        return torch.optim.RMSprop(params, lr=cfg.lr, alpha=0.99, weight_decay=wd)
    if name == "adam":
        return torch.optim.Adam(params, lr=cfg.lr, weight_decay=wd)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=cfg.lr, weight_decay=wd)
    raise ValueError(f"unknown optimizer {name!r}; choose one of {', '.join(OPTIMIZERS)}")


Callback = Callable[["Trainer"], None]


class Trainer:
    """Steps a Trainable; `status` is RunStatus.RUNNING until a stopping rule or the step budget
    ends it."""

    def __init__(
        self,
        task: Trainable,
        config: TrainConfig,
        callbacks: dict[str, list[Callback]] | None = None,
    ):
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.task, self.config = task, config
        self.callbacks = {"step": [], "eval": [], "snapshot": [], **(callbacks or {})}
        params = list(task.parameters())
        self.optimizer = make_optimizer(config.optimizer, params, config) if params else None
        self.scheduler = (
            torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=config.steps)
            if self.optimizer is not None and config.schedule == "cosine"
            else None
        )
        self.generator = torch.Generator().manual_seed(config.seed)
        self.history = History()
        self.snapshots: list[tuple[int, Snapshot]] = []
        self.step_count, self.status, self.reason = 0, RunStatus.RUNNING, ""
        self.last_loss = math.nan  # the batch loss of the latest step
        self.last_evaluation: Evaluation | None = None
        self.best_val, self.bad_evals, self.first_loss = math.inf, 0, None
        self.started = time.perf_counter()
        self._evaluate()
        self._snapshot()

    def batch(self) -> Tensor:
        n, mode = self.task.n_train, self.config.batch_mode
        if mode == "full":
            return torch.arange(n)
        size = 1 if mode == "single" else min(self.config.batch_size, n)
        return torch.randperm(n, generator=self.generator)[:size]

    def step(self) -> None:
        """One optimisation step, then evaluations, snapshots and stopping rules when due."""
        if self.status != RunStatus.RUNNING:
            return
        if self.optimizer is None:
            self._finish(
                RunStatus.DONE, "nothing to learn: this choice has no trainable parameters"
            )
            return
        loss = self.task.loss(self.batch())
        value = float(loss.detach())
        if self._diverged(value):
            return
        if not loss.requires_grad:
            self._finish(
                RunStatus.DONE, "nothing to learn: the loss does not depend on the parameters"
            )
            return
        self.optimizer.zero_grad()
        loss.backward()
        if self.config.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.task.parameters(), self.config.grad_clip)
        self.optimizer.step()
        if self.scheduler is not None:
            self.scheduler.step()
        self.step_count, self.last_loss = self.step_count + 1, value
        self.history.add_step(self.step_count, value)
        self._run("step")
        if self.step_count % self.config.eval_every == 0 or self.step_count == self.config.steps:
            self._evaluate()
        if self.step_count % self.config.snapshot_every == 0:
            self._snapshot()
        if self.status == RunStatus.RUNNING and self.step_count >= self.config.steps:
            self._finish(RunStatus.DONE, f"finished {self.step_count} steps")

    def run(self, max_steps: int | None = None) -> Trainer:
        """Step until a stopping rule fires (or max_steps more steps)."""
        for _ in range(max_steps or self.config.steps):
            if self.status != RunStatus.RUNNING:
                break
            self.step()
        return self

    def stop(self, reason: str = "stopped by the user") -> None:
        if self.status == RunStatus.RUNNING:
            self._finish(RunStatus.STOPPED, reason)

    def _diverged(self, value: float) -> bool:
        if self.first_loss is None:
            self.first_loss = value
        limit = max(10.0, self.config.divergence_factor * abs(self.first_loss))
        if math.isfinite(value) and value <= limit:
            return False
        what = (
            "not a number"
            if not math.isfinite(value)
            else f"{value:.3g}, far above its start {self.first_loss:.3g}"
        )
        self._finish(
            RunStatus.DIVERGED,
            f"the loss diverged at step {self.step_count + 1} ({what}): lower the learning rate",
        )
        return True

    def _evaluate(self) -> None:
        with torch.no_grad():
            result = self.task.evaluate()
        self.last_evaluation = Evaluation.from_result(self.step_count, result)
        self.history.add_evaluation(self.last_evaluation)
        self._run("eval")
        if self.config.patience and self.step_count:
            if result["val_loss"] < self.best_val - 1e-9:
                self.best_val, self.bad_evals = result["val_loss"], 0
            else:
                self.bad_evals += 1
                if self.bad_evals >= self.config.patience:
                    self._snapshot()
                    self._finish(
                        RunStatus.STOPPED_EARLY,
                        f"validation loss has not improved for {self.bad_evals} evaluations",
                    )
        elif self.step_count == 0:
            self.best_val = result["val_loss"]

    def _snapshot(self) -> None:
        with torch.no_grad():
            self.snapshots.append((self.step_count, self.task.snapshot()))
        self._run("snapshot")

    def _finish(self, status: RunStatus, reason: str) -> None:
        self.status, self.reason = status, reason

    def _run(self, event: str) -> None:
        for callback in self.callbacks.get(event, []):
            callback(self)

    @property
    def steps_per_second(self) -> float:
        elapsed = time.perf_counter() - self.started
        return self.step_count / elapsed if elapsed > 0 else 0.0
