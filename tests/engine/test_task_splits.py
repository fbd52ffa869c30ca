"""No task validates on its training examples: zero exact overlap of (input, target) pairs."""

from __future__ import annotations

import dataclasses

import pytest

from attnviz.data.tasks import TASK_NAMES, TEXT_PATH, TaskSpec, build_task, seen_in_training
from attnviz.topics.train_transformer.task import PRESETS, TransformerJobSpec

PRESET_SPECS = {name: task for name, (task, _, _) in PRESETS.items()}
SMALLEST = {"length": 4, "n_symbols": 3}  # the page's smallest digit space: 3**4 strings


def overlap(train_x, train_y, val_x, val_y) -> int:
    """Validation rows whose input and target both equal some training row's (a plain check,
    written apart from the engine's `seen_in_training`)."""
    train = {(tuple(x), tuple(y)) for x, y in zip(train_x.tolist(), train_y.tolist(), strict=True)}
    return sum(
        (tuple(x), tuple(y)) in train for x, y in zip(val_x.tolist(), val_y.tolist(), strict=True)
    )


@pytest.mark.parametrize("name", TASK_NAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_validation_example_is_a_training_example(name, seed):
    task = build_task(TaskSpec(name, seed=seed))
    assert len(task.val_x) > 0
    assert overlap(task.train_x, task.train_y, task.val_x, task.val_y) == 0
    assert not seen_in_training(task).any()


@pytest.mark.parametrize("preset", list(PRESET_SPECS))
def test_presets_validate_on_unseen_examples(preset):
    task = build_task(PRESET_SPECS[preset])
    assert len(task.val_x) == min(task.spec.n_val, len(task.val_x)) > 0
    assert overlap(task.train_x, task.train_y, task.val_x, task.val_y) == 0


@pytest.mark.parametrize("name", ["copy", "reverse", "sort"])
def test_tiny_digit_spaces_still_hold_strings_out(name):
    """With 81 possible strings, 2000 training draws repeat every training string; the held-out
    ones are still never drawn for training, so validation is not empty and not seen."""
    task = build_task(TaskSpec(name, n_train=2000, **SMALLEST))
    assert len(task.val_x) == 500
    assert overlap(task.train_x, task.train_y, task.val_x, task.val_y) == 0


def test_text_validation_comes_from_paragraphs_never_trained_on():
    paragraphs = TEXT_PATH.read_text(encoding="utf-8").strip().split("\n")
    assert len(set(paragraphs)) == len(paragraphs) >= 10
    task = build_task(TaskSpec("next_char", length=16))
    train_text = {"".join(task.decode(x)) for x in task.train_x}
    held_out = " ".join(paragraphs[0::5])  # seed 0 holds out paragraphs 0, 5, 10, ...
    for x in task.val_x:
        window = "".join(task.decode(x))
        assert window not in train_text and window in held_out


def test_evaluation_reports_per_sequence_accuracy():
    spec = dataclasses.replace(PRESET_SPECS["Copy: causal decoder"], n_train=500)
    result = TransformerJobSpec(spec).build().evaluate()
    assert 0.0 <= result["val_sequence_accuracy"] <= result["val_metric"] + 1e-6
