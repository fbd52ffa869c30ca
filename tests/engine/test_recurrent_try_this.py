"""The recurrence page's "Try this" claims, performed with the presets' own settings (slow: each
preset is trained once for the session by the page's scene, as the page trains it: the
`trained` fixture, tests/support/trained.py; the dates claims stop its run at step 400)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attnviz.topics import live
from attnviz.topics.recurrent.inference import length_accuracy, read_encoder, translate
from attnviz.topics.recurrent.task import BASELINE, PRESETS, RecurrentJobSpec
from tests.support.apptest import figures, open_page

DATES = "Dates: Bahdanau (additive, 2-way GRU)"
REVERSE = "Reverse: additive, 2-way GRU"
AT = 400  # the dates claims' step


@pytest.fixture
def dates_run(trained) -> live.TrainedRun:
    return trained("recurrent", DATES, stop_at=AT, every=AT)  # evaluated at steps 0 and AT


def snapshot_at(run: live.TrainedRun, step: int) -> dict:
    return dict(run.snapshots)[step]


@pytest.mark.slow
@pytest.mark.try_this("recurrent", 1)
def test_attention_learns_the_dates_long_before_the_baseline(dates_run):
    history = dates_run.history
    at = history.eval_step.index(AT)
    assert history.val_metric[at] >= 0.95, history.val_metric
    assert history.extra[at][f"{BASELINE} val_metric"] < 0.5, history.extra[at]


def year_positions(text: str) -> list[int]:
    start = text.rindex(" ") + 1  # the probe is "d mon yyyy": the year is the last word
    return list(range(start, start + 4))


@pytest.mark.slow
@pytest.mark.try_this("recurrent", 2)
def test_the_alignment_is_flat_at_first_and_then_a_diagonal_through_the_year(dates_run):
    first_step, first = dates_run.snapshots[0]
    last = snapshot_at(dates_run, AT)
    task = dates_run.restore().task
    text = task.input_texts[task.probe]
    assert first_step == 0
    assert first.alignment[:, : len(text)].max() < 0.3, "nearly flat before training"
    years = last.alignment[:4, : len(text)]  # the output's first 4 characters: the year
    assert years.argmax(1).tolist() == year_positions(text), (text, years.argmax(1))
    assert (years.max(1) > 0.5).all()


def digits_at_the_end(text: str) -> list[int]:
    """Positions of the text's last run of digits: the year in "march 5, 2031" and "05.03.31"."""
    found = re.search(r"[0-9]+$", text)
    assert found, text
    return list(range(found.start(), found.end()))


@pytest.mark.slow
@pytest.mark.try_this("recurrent", 5)
@pytest.mark.parametrize(
    ("text", "year"), [("march 5, 2031", [9, 10, 11, 12]), ("05.03.31", [6, 7])]
)
def test_other_formats_of_a_date_are_translated_and_aligned(dates_run, text, year):
    """The output year's characters that the input spells (all four of "2031", the "31" of
    "05.03.31") are each written while looking hardest at that character of the input."""
    assert digits_at_the_end(text) == year
    pair = dates_run.job.spec.restore(snapshot_at(dates_run, AT))
    result = translate(pair, text)
    assert result.output == "2031-03-05" == result.expected, (text, result.output)
    rows = result.alignment[4 - len(year) : 4]  # output "2031": its last len(year) characters
    assert result.output[4 - len(year) : 4] == "".join(text[i] for i in year)
    assert rows.argmax(1).tolist() == year, (text, result.alignment.argmax(1))
    assert (rows.max(1) > 0.5).all(), (text, rows.max(1))


@pytest.mark.slow
@pytest.mark.timeout(900)  # the whole 600-step run: about 3 minutes on one quiet core
@pytest.mark.try_this("recurrent", 3)
def test_reverse_aligns_on_the_anti_diagonal_and_the_baseline_fails_on_long_strings(trained):
    run = trained("recurrent", REVERSE, every=10_000)  # reads only the end
    pair = run.restore()
    task = pair.task
    text = task.input_texts[task.probe]
    n = len(text)
    align = run.snapshot.alignment[:n, :n]
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
    at = open_page("pages/recurrent_page.py", {"rn_open_states": "true", "rn_bi": "false"})
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
    forward, backward = read_encoder(spec.restore(live.untrained(spec)).model, "23 nov 2026").read
    assert np.triu(forward, 1).max() < 1e-6 and np.tril(backward, -1).max() < 1e-6
