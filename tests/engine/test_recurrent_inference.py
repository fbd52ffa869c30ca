"""What the recurrence page asks of a pair: a typed date through both models (bad input gets
reasons, never an exception), exact match by input length, and the encoder's states with what
each has read (a one-way state never sees a later character; a backward one never an earlier)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnviz.data.dates import MAX_IN, DateTaskSpec, encode_inputs
from attnviz.models.rnn import Seq2SeqConfig
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
from tests.support.hand_seq2seq import hand_translate

SMALL = Seq2SeqConfig(d_embed=16, d_hidden=16)


def pair_for(model: Seq2SeqConfig = SMALL, task: str = "dates"):
    spec = RecurrentJobSpec(DateTaskSpec(task, n_train=100, n_val=50), model)
    return spec.restore(live.untrained(spec))


# The page's own date box and four more: each row of the alignment must be the weights of the step
# that wrote the character labelling it. Untrained, the models often write PAD or BOS before EOS
# (steps that write no character): a slicing that keeps the first len(text) rows then labels a
# row with a character another step wrote. `shifts`: some of these dates have such steps.
ORACLE_MODELS = {
    "2-way GRU, additive (the page's model)": (Seq2SeqConfig(d_embed=32), True),
    "2-way GRU, additive, small": (SMALL, True),
    "2-way GRU, dot: (Pq)·k": (Seq2SeqConfig(d_embed=16, d_hidden=16, attention="dot"), True),
    "1-way LSTM, dot: q·k": (
        Seq2SeqConfig(d_embed=16, d_hidden=16, cell="lstm", bidirectional=False, attention="dot"),
        False,
    ),
    "2-way LSTM, general": (
        Seq2SeqConfig(d_embed=16, d_hidden=16, cell="lstm", attention="general"),
        False,
    ),
}


def hand_rows(hand, text: str) -> np.ndarray:
    """(characters written, Tin): the weights of each step that wrote a character, in order."""
    rows = [weights for _, weights in hand.written]
    return np.stack(rows) if rows else np.zeros((0, len(text)))


@pytest.mark.parametrize(("model", "shifts"), ORACLE_MODELS.values(), ids=ORACLE_MODELS)
def test_each_alignment_row_holds_the_weights_of_the_step_that_wrote_its_character(model, shifts):
    """Oracle: tests/support/hand_seq2seq.py decodes greedily by hand from the weights (scores,
    softmax, context, cell, output layer written out) and keeps, for each character it writes,
    the weights of the step that wrote it."""
    pair = pair_for(model)
    with_specials = 0
    for text in ["23 nov 2026", *pair.task.input_texts[:40]]:
        hand = hand_translate(pair.model, text)
        result = translate(pair, text)
        assert result.output == hand.text, text
        assert result.baseline_output == hand_translate(pair.baseline, text).text, text
        expected = hand_rows(hand, text)
        assert result.alignment.shape == expected.shape, (text, [s.token for s in hand.steps])
        np.testing.assert_allclose(result.alignment, expected, atol=1e-5, err_msg=text)
        with_specials += hand.specials_before_eos > 0
    assert with_specials > 0 or not shifts, "the case that matters: steps writing no character"


def test_a_date_gets_the_rule_s_answer_and_no_problems():
    result = translate(pair_for(), "23 nov 2026")
    assert result.problems == []
    assert result.expected == "2026-11-23"


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
