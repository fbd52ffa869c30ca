"""The model-agnostic Trainer: optimizers, batch modes, divergence, early stopping, callbacks."""

from __future__ import annotations

import copy
import dataclasses
import math

import pytest
import torch

from attnviz.data.tasks import TaskSpec
from attnviz.data.toy import DatasetSpec
from attnviz.models.kernel_smoother import KernelSmootherConfig
from attnviz.topics.kernel_smoother.task import KernelJobSpec, KernelTrainable
from attnviz.topics.train_transformer.task import TransformerJobSpec
from attnviz.training.messages import RunStatus
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


BATCH_SIZES = {"full": 16, "minibatch": 4, "single": 1}  # with n_train = 16, batch_size = 4


@pytest.mark.parametrize("mode", BATCH_MODES)
def test_batch_modes(mode):
    trainer = Trainer(Quadratic(), TrainConfig(batch_mode=mode, batch_size=4, seed=3))
    batches = [trainer.batch() for _ in range(20)]
    size = BATCH_SIZES[mode]
    for b in batches:
        assert len(b) == size and len(set(b.tolist())) == size, "no index twice in a batch"
        assert int(b.min()) >= 0 and int(b.max()) < 16
    distinct = {tuple(b.tolist()) for b in batches}
    if mode == "full":
        assert distinct == {tuple(range(16))}
    else:
        assert len(distinct) > 5, "batches are drawn anew each step"
        again = Trainer(Quadratic(), TrainConfig(batch_mode=mode, batch_size=4, seed=3))
        assert all(torch.equal(b, again.batch()) for b in batches), "the seed fixes the draws"
    task = Quadratic()
    Trainer(task, TrainConfig(batch_mode=mode, batch_size=4, steps=3)).run()
    assert task.seen == [size] * 3, "the loss gets those batches"


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
    seen, losses, evals, snaps = [], [], [], []
    trainer = Trainer(
        Quadratic(),
        TrainConfig(steps=20, eval_every=5, snapshot_every=10),
        callbacks={
            "step": [lambda t: (seen.append(t.step_count), losses.append(t.last_loss))],
            "eval": [lambda t: evals.append(t.last_evaluation)],
            "snapshot": [lambda t: snaps.append(t.snapshots[-1][0])],
        },
    ).run()
    assert seen == list(range(1, 21))
    assert losses == trainer.history.train_loss, "the step callback sees each step's loss"
    assert [e.step for e in evals] == trainer.history.eval_step == [0, 5, 10, 15, 20]
    assert [e.val_loss for e in evals] == trainer.history.val_loss
    assert snaps == [s for s, _ in trainer.snapshots] == [0, 10, 20]
    assert trainer.status == RunStatus.DONE and trainer.steps_per_second > 0


def test_trainables_do_not_change_their_spec():
    """A run is matched to the page's settings by its spec, so building must leave it as it was."""
    kernel = KernelJobSpec(DatasetSpec("rings_2d", n=20), KernelSmootherConfig(rank=2))
    kept = copy.deepcopy(kernel)
    trainable = kernel.build()
    Trainer(trainable, TrainConfig(steps=2)).run()
    assert kernel == kept and kernel.model.dim == 1
    assert trainable.model_config.dim == 2, "J comes from the data, into the Trainable's own config"
    with pytest.raises(dataclasses.FrozenInstanceError):
        kernel.model.dim = 2  # type: ignore[misc]
    transformer = TransformerJobSpec(TaskSpec("copy", length=4, n_train=64))
    kept = copy.deepcopy(transformer)
    Trainer(transformer.build(), TrainConfig(steps=2)).run()
    assert transformer == kept and transformer.model.vocab_size == kept.model.vocab_size


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


def test_extra_evaluation_numbers_reach_the_history_and_its_csv():
    from attnviz.training.history import History
    from attnviz.training.messages import Evaluation

    result = {"train_loss": 1.0, "val_loss": 2.0, "train_metric": 0.5, "val_metric": 0.25}
    history = History()
    history.add_evaluation(Evaluation.from_result(0, result | {"val_sequence_accuracy": 0.125}))
    assert history.latest_extra("val_sequence_accuracy") == 0.125
    rows = history.to_csv().strip().splitlines()
    assert rows == [
        "step,train_loss,val_loss,train_metric,val_metric,val_sequence_accuracy",
        "0,,2,0.5,0.25,0.125",
    ]
