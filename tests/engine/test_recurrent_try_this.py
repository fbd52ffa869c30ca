"""The recurrence page's "Try this" claims, performed with the presets' own settings (slow: the
dates preset is trained once for the module, as the page trains it, and stopped at step 400;
reverse is trained for its whole run)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnviz.topics.recurrent.inference import length_accuracy, read_encoder, translate
from attnviz.topics.recurrent.task import (
    BASELINE,
    PRESETS,
    RecurrentJobSpec,
    restore,
    untrained,
)
from attnviz.training.trainer import Trainer
from tests.support.apptest import figures, open_page

DATES = "Dates: Bahdanau (additive, 2-way GRU)"
REVERSE = "Reverse: additive, 2-way GRU"


def train(preset: str, steps: int | None = None) -> Trainer:
    """The preset's run as the page starts it (same spec, same schedule), stopped after `steps`;
    on one thread, as the page's worker processes train."""
    torch.manual_seed(0)
    task, model, config = PRESETS[preset]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        trainer = Trainer(RecurrentJobSpec(task, model).build(), config)
        for _ in range(steps or config.steps):
            trainer.step()
    finally:
        torch.set_num_threads(threads)
    return trainer


@pytest.fixture(scope="module")
def dates_run() -> Trainer:
    return train(DATES, 400)


def pair_at(trainer: Trainer, preset: str, index: int):
    task, model, _ = PRESETS[preset]
    return restore(RecurrentJobSpec(task, model), trainer.snapshots[index][1])


@pytest.mark.slow
@pytest.mark.try_this("recurrent", 1)
def test_attention_learns_the_dates_long_before_the_baseline(dates_run):
    history = dates_run.history
    assert history.eval_step[-1] == 400
    assert history.val_metric[-1] >= 0.95, history.val_metric
    assert history.latest_extra(f"{BASELINE} val_metric") < 0.5, history.extra[-1]


def year_positions(text: str) -> list[int]:
    start = text.rindex(" ") + 1  # the probe is "d mon yyyy": the year is the last word
    return list(range(start, start + 4))


@pytest.mark.slow
@pytest.mark.try_this("recurrent", 2)
def test_the_alignment_is_flat_at_first_and_then_a_diagonal_through_the_year(dates_run):
    first_step, first = dates_run.snapshots[0]
    _, last = dates_run.snapshots[-1]
    task = dates_run.task.task
    text = task.input_texts[task.probe]
    assert first_step == 0
    assert first["alignment"][:, : len(text)].max() < 0.3, "nearly flat before training"
    years = last["alignment"][:4, : len(text)]  # the output's first 4 characters: the year
    assert years.argmax(1).tolist() == year_positions(text), (text, years.argmax(1))
    assert (years.max(1) > 0.5).all()


@pytest.mark.slow
@pytest.mark.try_this("recurrent", 5)
def test_other_formats_of_a_date_are_translated_and_aligned(dates_run):
    pair = pair_at(dates_run, DATES, -1)
    for text in ("march 5, 2031", "05.03.31"):
        result = translate(pair, text)
        assert result.output == "2031-03-05" == result.expected, (text, result.output)
        digits = [text.index(c) for c in "2031" if c in text]
        assert result.alignment[:4].argmax(1).max() >= min(digits)


@pytest.mark.slow
@pytest.mark.timeout(900)  # the whole 600-step run: about 3 minutes on one quiet core
@pytest.mark.try_this("recurrent", 3)
def test_reverse_aligns_on_the_anti_diagonal_and_the_baseline_fails_on_long_strings():
    trainer = train(REVERSE)
    pair = pair_at(trainer, REVERSE, -1)
    task = pair.task
    text = task.input_texts[task.probe]
    n = len(text)
    align = trainer.snapshots[-1][1]["alignment"][:n, :n]
    assert (align.argmax(1) == np.arange(n)[::-1]).mean() >= 0.9, align.argmax(1)
    rows = length_accuracy(pair)
    attention, baseline = rows["with attention"], rows[BASELINE]

    def mean_over(scores, keep) -> float:
        return np.mean(
            [c for n, c in zip(scores.lengths, scores.characters, strict=True) if keep(n)]
        )

    assert baseline.characters[baseline.lengths.index(8)] >= 0.7, baseline
    assert mean_over(baseline, lambda n: n >= 24) < 0.5, baseline
    assert mean_over(attention, lambda n: n >= 24) >= 0.95 and min(attention.exact) >= 0.9


@pytest.mark.try_this("recurrent", 4)
def test_a_one_way_encoder_reads_one_triangle_and_a_two_way_adds_the_other():
    at = open_page("pages/recurrent_networks.py", {"rn_open_states": "true", "rn_bi": "false"})
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert "forward: what state t has read" in titles
    assert "backward: what state t has read" not in titles
    assert any("knows nothing of the characters after it" in c.value for c in at.caption)
    at.toggle(key="rn_bi").set_value(True).run()
    read = {f["layout"]["title"]["text"]: f for f in figures(at)}
    assert "backward: what state t has read" in read
    captions = " ".join(c.value for c in at.caption)
    assert "up to it (lower triangle)" in captions and "to the end (upper triangle)" in captions
    task, model, _ = PRESETS[DATES]
    spec = RecurrentJobSpec(task, model)
    forward, backward = read_encoder(restore(spec, untrained(spec)).model, "23 nov 2026").read
    assert np.triu(forward, 1).max() < 1e-6 and np.tril(backward, -1).max() < 1e-6
