"""What the recurrence page asks of a pair: a typed date through both models (bad input gets
reasons, never an exception), exact match by input length, and the encoder's states with what
each has read (a one-way state never sees a later character; a backward one never an earlier)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnviz.data.dates import BOS, EOS, MAX_IN, DateTaskSpec, encode_inputs
from attnviz.models.rnn import Seq2SeqConfig, greedy_decode
from attnviz.topics import live
from attnviz.topics.recurrent.inference import (
    MODEL_NAMES,
    length_accuracy,
    read_encoder,
    reading_span,
    shown_chars,
    translate,
)
from attnviz.topics.recurrent.task import RecurrentJobSpec

SMALL = Seq2SeqConfig(d_embed=16, d_hidden=16)


def pair_for(model: Seq2SeqConfig = SMALL, task: str = "dates"):
    spec = RecurrentJobSpec(DateTaskSpec(task, n_train=100, n_val=50), model)
    return spec.restore(live.untrained(spec))


def test_a_date_goes_through_both_models_with_the_alignment_of_what_was_written():
    pair = pair_for()
    result = translate(pair, "23 nov 2026")
    assert result.problems == []
    assert result.expected == "2026-11-23"
    x, lengths = encode_inputs(["23 nov 2026"])
    ids, align = greedy_decode(pair.model, x, lengths, BOS, EOS)
    written = [i for i in ids[0].tolist() if i not in (0, EOS)]
    assert result.alignment.shape == (len(result.output), len("23 nov 2026"))
    np.testing.assert_allclose(result.alignment, align[0, : len(written), :11].numpy())
    np.testing.assert_allclose(result.alignment.sum(-1), 1, atol=1e-5)
    assert isinstance(result.baseline_output, str)


@pytest.mark.parametrize(
    ("text", "words", "translated"),
    [
        ("", "empty", False),
        ("   ", "empty", False),
        ("1" * 500, "too long", False),
        ("23 nov 2026 ☃<b>", "Not in the vocabulary", True),
        ("31 feb 2026", "Not a date the task can read", True),
        ("hello", "Not a date the task can read", True),
    ],
)
def test_bad_input_gets_reasons_and_never_an_exception(text, words, translated):
    result = translate(pair_for(), text)
    assert any(words in p for p in result.problems), result.problems
    assert (result.alignment is not None) == translated
    if translated:
        assert result.alignment.shape[1] == len(text)
        assert result.expected is None


def test_reverse_expects_the_text_backwards():
    assert translate(pair_for(task="reverse"), "1 may 1999").expected == "9991 yam 1"


def test_exact_match_by_length_counts_every_validation_date_for_both_models():
    pair = pair_for()
    rows = length_accuracy(pair)
    assert list(rows) == list(MODEL_NAMES)
    for scores in rows.values():
        assert sum(scores.counts) == len(pair.task.val_x)
        assert all(0 <= share <= 1 for share in scores.exact + scores.characters)
        assert all(c >= e for c, e in zip(scores.characters, scores.exact, strict=True))
        assert scores.lengths == sorted(scores.lengths)


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_a_one_way_state_has_read_only_the_characters_up_to_it(cell):
    model = pair_for(Seq2SeqConfig(d_embed=16, d_hidden=16, cell=cell, bidirectional=False)).model
    reading = read_encoder(model, "monday, 2 march 1987")
    assert reading.directions == ["forward"]
    (read,) = reading.read
    assert np.triu(read, 1).max() < 1e-6, "a later character never moves an earlier state"
    assert (np.diag(read) > 1e-4).all(), "blanking a character moves its own state"
    assert reading_span(read) == "earlier"


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_a_two_way_encoder_adds_a_backward_half_that_reads_from_the_end(cell):
    model = pair_for(Seq2SeqConfig(d_embed=16, d_hidden=16, cell=cell, bidirectional=True)).model
    text = "23/11/2026"
    reading = read_encoder(model, text)
    assert reading.directions == ["forward", "backward"]
    forward, backward = reading.read
    assert reading_span(forward) == "earlier" and reading_span(backward) == "later"
    assert np.tril(backward, -1).max() < 1e-6
    x, lengths = encode_inputs([text], width=len(text))
    with torch.no_grad():
        states, _ = model.encoder(x, lengths)  # (1, T, 2 × 16)
    np.testing.assert_allclose(reading.states[0], states[0, :, :16].T.numpy(), atol=1e-6)
    np.testing.assert_allclose(reading.states[1], states[0, :, 16:].T.numpy(), atol=1e-6)


def test_axis_labels_show_spaces():
    assert shown_chars("1 may") == ["1", "␣", "m", "a", "y"]
    assert MAX_IN < 500
