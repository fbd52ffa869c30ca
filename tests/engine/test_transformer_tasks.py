"""Each toy task is learned by the tiny transformer in a short fixed-seed CPU run: the page's
presets, trained as the page trains them (once a session: tests/support/trained.py)."""

from __future__ import annotations

import pytest
import torch

from attnviz.data.tasks import IGNORE, TaskSpec, build_task
from attnviz.topics.train_transformer.task import SEQUENCE_ACCURACY, run_input
from tests.support.trained import FINAL

PAGE = "train-transformer"

FAST = {  # preset -> steps for the test
    "Reverse: 1 layer, 1 head": 600,
    "Sort: 1 layer, 2 heads": 700,
    "Copy: causal decoder": 600,
    "Next character (fables)": 600,
    "Fill in the blank (fables)": 800,
    "Modular addition (mod 47)": 2000,
}
# the runs are evaluated at their start and end only (FINAL): the tests read only the end
# validation per-token accuracy each preset must reach on examples never seen in training. The
# two text tasks are scored on held-out paragraphs of text that never repeats: measured at these
# steps (seed 0, 2 threads) next character 0.311 (per sequence 0.000) and fill in the blank
# 0.368, so a margin below that; the rest measured 0.993 (sort) to 1.000 (reverse)
TARGET = {name: 0.95 for name in FAST} | {
    "Next character (fables)": 0.25,
    "Fill in the blank (fables)": 0.30,
}


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(FAST))
def test_task_reaches_its_validation_accuracy(preset, trained):
    history = trained(PAGE, preset, tt_steps=FAST[preset], every=FINAL).history
    seq = history.latest_extra(SEQUENCE_ACCURACY)
    print(f"{preset}: val per token {history.val_metric[-1]:.3f}, per sequence {seq:.3f}")
    assert history.val_metric[-1] >= TARGET[preset], (preset, history.val_metric)
    assert seq is not None and 0.0 <= seq <= history.val_metric[-1] + 1e-6


@pytest.mark.slow
def test_reverse_attention_is_the_anti_diagonal_and_snapshot_restores(trained):
    run = trained(PAGE, "Reverse: 1 layer, 1 head", tt_steps=600, every=FINAL)
    step, snap = run.snapshots[-1]
    assert step == 600
    maps = snap.attention[0, 0]  # (T, T) layer 0, head 0
    t = maps.shape[0]
    assert maps[range(t), range(t - 1, -1, -1)].mean() > 0.5
    task, model = run.restore()
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
