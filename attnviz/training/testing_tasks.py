"""Tiny Trainables and their job specs for exercising the job pool (importable by workers)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from attnviz.training.snapshot import Snapshot


@dataclass(frozen=True, eq=False)
class ValueSnapshot(Snapshot):
    """The one parameter's value."""

    w: float


class SlowQuadratic:
    """A one-parameter problem whose steps take `delay` seconds (so a test can catch it mid-run)."""

    metric_name = "value"

    def __init__(self, delay: float):
        self.delay = delay
        self.w = torch.zeros(1, requires_grad=True)  # (1,)
        self.n_train = 1

    def parameters(self) -> list[torch.Tensor]:
        return [self.w]

    def loss(self, batch: torch.Tensor) -> torch.Tensor:
        time.sleep(self.delay)
        return ((self.w - 1) ** 2).sum()

    def evaluate(self) -> dict[str, float]:
        v = float(self.w)
        return {
            "train_loss": (v - 1) ** 2,
            "val_loss": (v - 1) ** 2,
            "train_metric": v,
            "val_metric": v,
        }

    def snapshot(self) -> ValueSnapshot:
        return ValueSnapshot(float(self.w))


@dataclass(frozen=True)
class SlowSpec:
    """A SlowQuadratic whose every step sleeps `delay` seconds."""

    delay: float = 0.0

    def build(self) -> SlowQuadratic:
        return SlowQuadratic(self.delay)


@dataclass(frozen=True)
class ExplodingSpec:
    """A spec whose build fails, as a broken page engine would."""

    def build(self) -> SlowQuadratic:
        raise RuntimeError("the factory failed on purpose")
