"""The transformer tools' checks: a loaded model must fit the page's task; typed input is read
per task and unknown characters are named, not silently dropped."""

from __future__ import annotations

import dataclasses

from attnviz.data.tasks import TaskSpec, build_task
from attnviz.models.checkpoint import load_model, save_model
from attnviz.models.transformer import TinyTransformer, TransformerConfig
from attnviz.topics.train_transformer.checks import (
    fit_problems,
    modular_answer,
    parse_input,
    split_known,
    trained_on,
)
from attnviz.topics.train_transformer.task import model_config

SMALL = TransformerConfig(d_model=16, d_ff=32)


def saved_and_loaded(spec: TaskSpec) -> tuple[TransformerConfig, dict]:
    """A model of `spec` through save_model / load_model, as the page's uploader gets it."""
    model = TinyTransformer(model_config(build_task(spec), SMALL))
    loaded, extra = load_model(*save_model(model, {"task": dataclasses.asdict(spec)}))
    return loaded.config, extra


def test_a_next_char_model_does_not_fit_reverse():
    """Repro (issue 10): this pair said "Loaded a model", then Your input raised IndexError."""
    config, extra = saved_and_loaded(TaskSpec("next_char", length=16))
    problems = fit_problems(config, extra, build_task(TaskSpec("reverse", length=8)))
    said = "; ".join(problems)
    assert "'next_char'" in said and "'reverse'" in said
    assert "vocabulary has 30 tokens, this task's has 10" in said
    assert "causal decoder" in said


def test_a_model_of_the_same_task_fits_and_is_named():
    spec = TaskSpec("reverse", length=8)
    config, extra = saved_and_loaded(spec)
    assert fit_problems(config, extra, build_task(spec)) == []
    assert trained_on(extra) == "reverse, length 8, 10 symbols"
    longer = build_task(TaskSpec("reverse", length=12))
    assert any(
        "at most 8 tokens, this task needs 12" in p for p in fit_problems(config, extra, longer)
    )
    assert trained_on({}) == "an unknown task (the config does not say)"


def test_unknown_characters_are_named_once_in_order():
    assert split_known(list("Hi, Hi!"), list("hi, ")) == (list("i, i"), ["H", "!"])
    text = build_task(TaskSpec("next_char", length=16))
    assert parse_input("a Fox", text) == (list("a ox"), ["F"]), "text tasks: characters, spaces too"
    digits = build_task(TaskSpec("reverse"))
    assert parse_input(" 1 2 banana ", digits) == (["1", "2", "banana"], []), "encode names these"
    assert parse_input("123", digits) == (["1", "2", "3"], [])


def test_the_modular_answer_of_a_sum():
    assert modular_answer(["30", "+", "40", "="], 47) == 23
    assert modular_answer(["3", "+", "4"], 7) is None and modular_answer(list("3+4="), 7) == 0
