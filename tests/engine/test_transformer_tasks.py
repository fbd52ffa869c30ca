"""Each toy task is learned by the tiny transformer in a short fixed-seed CPU run."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from attnviz.data.tasks import IGNORE, TaskSpec, build_task
from attnviz.topics.transformer.task import (
    PRESETS,
    SEQUENCE_ACCURACY,
    TransformerJobSpec,
    build_trainable,
    restore,
    run_input,
)
from attnviz.training.trainer import Trainer

FAST = {  # preset -> steps for the test (evaluation only at the end)
    "Reverse: 1 layer, 1 head": 600,
    "Sort: 1 layer, 2 heads": 700,
    "Copy: causal decoder": 600,
    "Next character (fables)": 600,
    "Fill in the blank (fables)": 800,
    "Modular addition (mod 47)": 2000,
}
# validation per-token accuracy each preset must reach on examples never seen in training. The
# two text tasks are scored on held-out paragraphs of text that never repeats: measured at these
# steps (seed 0, 2 threads) next character 0.311 (per sequence 0.000) and fill in the blank
# 0.368, so a margin below that; the rest measured 0.993 (sort) to 1.000 (reverse)
TARGET = {name: 0.95 for name in FAST} | {
    "Next character (fables)": 0.25,
    "Fill in the blank (fables)": 0.30,
}


def train(preset: str, steps: int) -> Trainer:
    torch.set_num_threads(2)
    task, model, cfg = PRESETS[preset]
    cfg = dataclasses.replace(cfg, steps=steps, eval_every=steps, snapshot_every=steps)
    return Trainer(build_trainable(TransformerJobSpec(task, model)), cfg).run()


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(FAST))
def test_task_reaches_its_validation_accuracy(preset):
    trainer = train(preset, FAST[preset])
    seq = trainer.history.latest_extra(SEQUENCE_ACCURACY)
    print(f"{preset}: val per token {trainer.history.val_metric[-1]:.3f}, per sequence {seq:.3f}")
    assert trainer.history.val_metric[-1] >= TARGET[preset], (preset, trainer.history.val_metric)
    assert seq is not None and 0.0 <= seq <= trainer.history.val_metric[-1] + 1e-6


@pytest.mark.slow
def test_reverse_attention_is_the_anti_diagonal_and_snapshot_restores():
    trainer = train("Reverse: 1 layer, 1 head", 600)
    step, snap = trainer.snapshots[-1]
    maps = snap["attention"][0, 0]  # (T, T) layer 0, head 0
    t = maps.shape[0]
    assert maps[range(t), range(t - 1, -1, -1)].mean() > 0.5
    task, model = restore(trainer.task.spec, snap["state"])
    pred, _ = run_input(model, task.val_x[:1])
    assert pred.tolist() == task.val_y[0].tolist()


@pytest.mark.parametrize(
    "name", ["copy", "reverse", "sort", "modular_addition", "next_char", "fill_blank"]
)
def test_tasks_are_deterministic_and_score_something(name):
    a, b = build_task(TaskSpec(name, seed=3)), build_task(TaskSpec(name, seed=3))
    assert torch.equal(a.train_x, b.train_x) and torch.equal(a.val_y, b.val_y)
    assert (a.train_y != IGNORE).any() and (a.val_y != IGNORE).any()
    assert int(a.train_x.max()) < len(a.vocab)
