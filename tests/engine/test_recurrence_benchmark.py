"""The sequential-vs-parallel measurement the recurrent page calls live (topics.recurrent.timing):
its rows, its crossover and the sentence it prints."""

import pytest

from attnviz.topics.recurrent.timing import (
    crossover,
    crossover_text,
    forward_times,
    summary,
)
from benchmarks.recurrence import table


def rows(*ratios, lengths=(16, 32, 64, 128)):
    return [
        {"length": n, "ratio": r, "device": "cpu"} for n, r in zip(lengths, ratios, strict=False)
    ]


def test_forward_times_measures_both_contenders_at_every_length():
    measured = forward_times((4, 8), "cpu", batch=2, seconds=0.0)
    assert [r["length"] for r in measured] == [4, 8]
    for r in measured:
        assert r["rnn_ms"] > 0 and r["attention_ms"] > 0
        assert r["ratio"] == pytest.approx(r["rnn_ms"] / r["attention_ms"])
        assert (r["rnn_steps"], r["attention_steps"]) == (r["length"], 1)
    assert len(table(measured).splitlines()) == 3


@pytest.mark.parametrize(
    ("ratios", "found", "words"),
    [
        ((0.5, 2, 3, 4), 32, "becomes slower at 32 tokens and stays slower"),
        ((2, 3, 4, 5), None, "slower at every length"),
        ((0.5, 0.6, 0.7, 0.9), None, "faster at every length"),
        ((2, 1.5, 0.8, 0.5), None, "outgrow"),
        ((0.5, 2, 0.5, 0.5), 32, "slower at 32 tokens and faster at 16, 64, 128"),
    ],
)
def test_the_crossover_and_the_sentence_say_what_was_measured(ratios, found, words):
    assert crossover(rows(*ratios)) == found
    assert words in summary(rows(*ratios))
    text = crossover_text(rows(*ratios))
    assert text == f"{found} tokens" if found else text.startswith("none in this range")


def test_the_crossover_back_to_attention_being_slower():
    assert crossover(rows(2, 1.5, 0.8, 0.5), rnn_slower=False) == 64
    assert crossover(rows(0.5, 2, 0.5, 0.5), rnn_slower=False) == 64
    assert crossover(rows(2, 3, 4, 5), rnn_slower=False) is None
