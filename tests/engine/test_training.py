"""The model-agnostic Trainer: optimizers, batch modes, divergence, early stopping, callbacks."""

from __future__ import annotations

import math

import pytest
import torch

from attnviz.models.kernel_smoother import KernelSmootherConfig
from attnviz.topics.kernel.task import KernelJobSpec, KernelTrainable
from attnviz.training.trainer import BATCH_MODES, OPTIMIZERS, TrainConfig, Trainer


class Quadratic:
    """loss = mean over a batch of ‖w − target_i‖²; validation = the same on held-out targets."""

    metric_name = "distance"

    def __init__(self, n: int = 16):
        self.w = torch.zeros(2, requires_grad=True)
        self.targets = torch.ones(n, 2)
        self.n_train = n
        self.seen: list[int] = []

    def parameters(self):
        return [self.w]

    def loss(self, batch):
        self.seen.append(len(batch))
        return ((self.w - self.targets[batch]) ** 2).sum(1).mean()

    def evaluate(self):
        d = float(((self.w - 1) ** 2).sum())
        return {"train_loss": d, "val_loss": d, "train_metric": d, "val_metric": d}

    def snapshot(self):
        return {"w": self.w.detach().clone().numpy()}


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_every_optimizer_descends(optimizer):
    task = Quadratic()
    trainer = Trainer(task, TrainConfig(optimizer=optimizer, lr=0.1, steps=60, eval_every=60))
    trainer.run()
    assert trainer.history.val_loss[-1] < 0.5 * trainer.history.val_loss[0], optimizer


@pytest.mark.parametrize(("mode", "size"), [("full", 16), ("minibatch", 4), ("single", 1)])
def test_batch_modes(mode, size):
    task = Quadratic()
    Trainer(task, TrainConfig(batch_mode=mode, batch_size=4, steps=3)).run()
    assert task.seen == [size] * 3
    assert mode in BATCH_MODES


def test_huge_learning_rate_is_reported_as_divergence():
    task = KernelTrainable(KernelJobSpec(model=KernelSmootherConfig(value_fn="linear")))
    trainer = Trainer(task, TrainConfig(optimizer="sgd", lr=1e3, steps=100)).run()
    assert trainer.status == "diverged"
    assert "lower the learning rate" in trainer.reason
    assert trainer.step_count < 100


def test_early_stopping_after_patience_evaluations():
    task = Quadratic()
    trainer = Trainer(
        task, TrainConfig(lr=0.5, optimizer="sgd", steps=500, eval_every=1, patience=3)
    ).run()
    assert trainer.status == "stopped early"
    assert trainer.step_count < 500
    assert "not improved for 3" in trainer.reason


def test_history_snapshots_and_callbacks():
    seen = []
    trainer = Trainer(
        Quadratic(),
        TrainConfig(steps=20, eval_every=5, snapshot_every=10),
        callbacks={"step": [lambda t: seen.append(t.step_count)]},
    ).run()
    assert seen == list(range(1, 21))
    assert trainer.history.eval_step == [0, 5, 10, 15, 20]
    assert [s for s, _ in trainer.snapshots] == [0, 10, 20]
    assert trainer.status == "done" and trainer.steps_per_second > 0


def test_cosine_schedule_follows_the_formula_and_constant_stays():
    rates: list[float] = []
    record = [lambda trainer: rates.append(trainer.optimizer.param_groups[0]["lr"])]
    config = TrainConfig(optimizer="sgd", lr=0.2, steps=10, schedule="cosine")
    Trainer(Quadratic(), config, {"step": record}).run()
    # after step t the rate used next is lr/2 · (1 + cos(π t / T)); it reaches 0 at the end
    expected = [0.1 * (1 + math.cos(math.pi * t / 10)) for t in range(1, 11)]
    assert rates == pytest.approx(expected, abs=1e-12)
    rates.clear()
    Trainer(Quadratic(), TrainConfig(optimizer="sgd", lr=0.2, steps=5), {"step": record}).run()
    assert rates == [0.2] * 5


def test_bad_config_is_refused_with_reasons():
    with pytest.raises(ValueError, match="schedule"):
        Trainer(Quadratic(), TrainConfig(schedule="sawtooth"))
    with pytest.raises(ValueError, match="optimizer"):
        Trainer(Quadratic(), TrainConfig(optimizer="magic"))
    with pytest.raises(ValueError, match="learning rate"):
        Trainer(Quadratic(), TrainConfig(lr=float("nan")))


def test_history_csv_has_every_step_and_the_evaluations():
    trainer = Trainer(Quadratic(), TrainConfig(steps=6, eval_every=3)).run()
    rows = trainer.history.to_csv().strip().splitlines()
    assert rows[0] == "step,train_loss,val_loss,train_metric,val_metric"
    assert [r.split(",")[0] for r in rows[1:]] == [str(i) for i in range(7)]
    step3 = rows[4].split(",")
    assert float(step3[1]) == pytest.approx(trainer.history.train_loss[2], rel=1e-5)
    assert float(step3[2]) == pytest.approx(trainer.history.val_loss[1], rel=1e-5)
    assert rows[2].split(",")[2:] == ["", "", ""]  # step 1: no evaluation


@pytest.mark.parametrize("kernel", ["boxcar", "constant"])
def test_a_kernel_with_nothing_to_learn_ends_with_a_reason(kernel):
    spec = KernelJobSpec(model=KernelSmootherConfig(kernel))
    trainer = Trainer(KernelTrainable(spec), TrainConfig(steps=10)).run()
    assert trainer.status == "done" and "nothing to learn" in trainer.reason
    assert trainer.step_count == 0


def test_a_loss_without_gradient_ends_with_a_reason():
    class Detached(Quadratic):
        def loss(self, batch):
            return super().loss(batch).detach()

    trainer = Trainer(Detached(), TrainConfig(steps=10)).run()
    assert trainer.status == "done" and "does not depend" in trainer.reason
