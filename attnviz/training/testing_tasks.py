"""Tiny Trainables for exercising the job pool (importable by worker processes)."""

from __future__ import annotations

import time

import torch


class SlowQuadratic:
    """A one-parameter problem whose steps take `delay` seconds (so a test can catch it mid-run)."""

    metric_name = "value"

    def __init__(self, delay: float):
        self.delay = delay
        self.w = torch.zeros(1, requires_grad=True)
        self.n_train = 1

    def parameters(self):
        return [self.w]

    def loss(self, batch):
        time.sleep(self.delay)
        return ((self.w - 1) ** 2).sum()

    def evaluate(self):
        v = float(self.w)
        return {
            "train_loss": (v - 1) ** 2,
            "val_loss": (v - 1) ** 2,
            "train_metric": v,
            "val_metric": v,
        }

    def snapshot(self):
        return {"w": float(self.w)}


def slow(delay: float) -> SlowQuadratic:
    return SlowQuadratic(delay)


def explode(_spec) -> None:
    raise RuntimeError("the factory failed on purpose")
