"""Typed answers in the classroom store (issue 59): a word or a number per phone, how sure, both
rounds, the presenter's hidden words, the CSV export, and what the projector says about them.
The expected counts are made in the test from the answers as typed (collections.Counter,
numpy), never read back from the code under test."""

from __future__ import annotations

import csv
import io
import uuid
from collections import Counter

import numpy as np
import pytest

from attnviz.classroom import BadInput, Store, StoreConfig, VoteResult
from attnviz.classroom import typed_views as tv
from attnviz.classroom.config import sqlite_url
from attnviz.figures.classroom_typed import numbers_figure, words_figure
from attnviz.lessons.typed_answers import NUMBER, WORDS, typed_number, typed_word

TYPED = [  # what five phones typed: markup, a formula, a link, an emoji, right-to-left text
    "<b>Berlin</b>",
    "=1+1",
    "https://example.com",
    "Berlin 🇩🇪",
    "برلين",
    "Berlin",
    "  Berlin ",
    "berlin",
]


@pytest.fixture
def room(tmp_path):
    store = Store(StoreConfig(url=sqlite_url(tmp_path / "typed.sqlite3")))
    code, key = store.open_room("09_inside_a_language_model")
    yield store, code, key
    store.dispose()


def voters(n: int) -> list[str]:
    return [uuid.uuid4().hex for _ in range(n)]


def test_every_typed_word_is_counted_once_as_typed(room):
    store, code, key = room
    store.open_round(code, key, 1, [], 1, kind=WORDS)
    ids = voters(len(TYPED))
    results = [store.vote(code, v, text, 1, 1) for v, text in zip(ids, TYPED, strict=True)]
    assert results == [VoteResult.ACCEPTED] * len(TYPED)
    assert store.vote(code, ids[0], "Paris", 1, 1) is VoteResult.DUPLICATE  # the first stands
    expected = Counter(text.strip() for text in TYPED)
    assert Counter(store.counts(code, 1, 1)) == expected
    assert store.counts(code, 1, 1)["Berlin"] == 2  # "Berlin" and "  Berlin " are one word


@pytest.mark.parametrize("text", ["", "   ", "x" * 200, "a\x00b", "\ud800", "two\nlines\x07"])
def test_a_word_that_cannot_be_one_is_refused_with_nothing_stored(room, text):
    store, code, key = room
    store.open_round(code, key, 2, [], 1, kind=WORDS)
    assert store.vote(code, voters(1)[0], text, 2, 1) is VoteResult.UNKNOWN_OPTION
    assert store.counts(code, 2, 1) == {}


def test_numbers_count_as_one_however_they_are_written(room):
    store, code, key = room
    store.open_round(code, key, 3, [], 1, kind=NUMBER)
    typed = ["324", "324.0", " 324 ", "0,5", ".5", "40 %", "1e3", "=1+1", "nan", "1e400"]
    outcomes = [
        store.vote(code, v, t, 3, 1) for v, t in zip(voters(len(typed)), typed, strict=True)
    ]
    accepted = [t for t, r in zip(typed, outcomes, strict=True) if r is VoteResult.ACCEPTED]
    assert accepted == typed[:7]
    assert store.counts(code, 3, 1) == {"324": 3, "0.5": 2, "1000": 1, "40": 1}


def test_how_sure_is_kept_per_vote_and_bounded(room):
    store, code, key = room
    store.open_round(code, key, 1, ["A", "B"], 1)
    a, b, c = voters(3)
    store.vote(code, a, "A", 1, 1, 5)
    store.vote(code, b, "B", 1, 1)
    with pytest.raises(BadInput):
        store.vote(code, c, "A", 1, 1, 6)
    assert store.counts(code, 1, 1) == {"A": 1, "B": 1}  # the refused vote left nothing
    assert [(x.answer, x.sure) for x in store.ballots(code, 1)] == [("A", 5), ("B", None)]


def test_both_rounds_show_who_moved_by_how_sure(room):
    store, code, key = room
    sure, unsure, later = voters(3)
    store.open_round(code, key, 4, [], 1, kind=WORDS)
    store.vote(code, sure, "Mary", 4, 1, 5)
    store.vote(code, unsure, "John", 4, 1, 1)
    store.open_round(code, key, 4, [], 2, kind=WORDS)
    store.vote(code, sure, "Mary", 4, 2, 5)
    store.vote(code, unsure, "Mary", 4, 2, 4)
    store.vote(code, later, "the", 4, 2)
    assert store.moves(code, 4) == {("Mary", "Mary"): 1, ("John", "Mary"): 1}
    rows = tv.sure_moves(store.ballots(code, 4))
    assert rows == [("sure (4–5)", 1, 0), ("unsure (1–2)", 1, 1)]
    right = tv.by_sure(store.ballots(code, 4), 2, lambda word: word == "Mary")
    assert right == [("sure (4–5)", 2, 2), ("not said", 1, 0)]


def test_hidden_words_leave_the_cloud_but_stay_counted(room):
    store, code, key = room
    store.open_round(code, key, 1, [], 1, kind=WORDS)
    for v, word in zip(voters(4), ["Berlin", "Berlin", "Paris", "rude"], strict=True):
        store.vote(code, v, word, 1, 1)
    store.hide_word(code, key, 1, "rude")
    assert store.hidden_words(code, 1) == ("rude",)
    ranked = (("␣Berlin", 0.8), ("␣Paris", 0.1))
    found = tv.words_reveal(store.counts(code, 1, 1), ranked, {"RUDE"}, None)
    assert found.shown == {"Berlin": 2, "Paris": 1}
    assert (found.hidden, found.total, found.top, found.named_top) == (1, 4, "Berlin", 2)
    assert (found.favourite, found.favourite_chance) == ("Berlin", 0.8)
    store.hide_word(code, key, 1, "rude", hide=False)
    assert store.hidden_words(code, 1) == ()


def test_the_export_keeps_typed_answers_as_text_never_formulas(room):
    store, code, key = room
    store.open_round(code, key, 1, [], 1, kind=WORDS)
    for v, word in zip(voters(3), ["=1+1", "@SUM(A1)", "Berlin"], strict=True):
        store.vote(code, v, word, 1, 1)
    rows = list(csv.reader(io.StringIO(store.export_csv(code, key))))
    assert rows[0] == ["step", "round", "kind", "answer", "count"]
    assert sorted(r[3] for r in rows[1:]) == ["'=1+1", "'@SUM(A1)", "Berlin"]


def test_the_histogram_holds_every_answer_on_the_chart():
    typed = ["300", "310", "324", "330", "350", "90000"] * 4  # one far-off typo, four times
    counts = Counter(typed_number(t) for t in typed)
    found = tv.numbers_reveal(counts, 324.0)
    values = np.array([float(t) for t in typed])
    assert found.median == np.median(values)
    assert found.off_chart == 4  # the typo does not squash the other bars
    figure = numbers_figure(
        [(1, found.values)], (found.low, found.high), tv.number_marks(found), 380
    )
    drawn = np.asarray(figure.data[0].x, dtype=float)
    assert sorted(drawn) == sorted(values[values < 1000])
    marks = sorted(shape.x0 for shape in figure.layout.shapes)
    assert marks == sorted([324.0, float(np.median(values))])


def test_the_word_map_escapes_what_was_typed():
    shown = {"<b>x</b>": 2, "Berlin": 5, "=1+1": 1}
    figure = words_figure(shown, "Berlin", 380)
    labels = list(figure.data[0].labels)
    assert labels == ["&lt;b&gt;x&lt;/b&gt;", "Berlin", "=1+1"]
    assert list(figure.data[0].values) == [2, 5, 1]
    assert figure.data[0].marker.colors[1] == "#e8590c"  # the model's top token in orange


def test_typed_words_and_numbers_read_as_a_person_means_them():
    assert typed_word("  Ber   lin ") == "Ber lin"
    assert typed_word("Café") == typed_word("Cafe\u0301")  # one word however it was composed
    assert typed_number("-0") == "0" and typed_number("12.50") == "12.5"
    assert typed_number("1,000") is None  # a thousands comma is not guessed at


def test_a_typed_questions_answer_reads_as_a_student_would_type_it():
    from attnviz.lessons.typed import shown_answer
    from attnviz.topics.scene import Answer

    code = Answer("+ (0)", ("+ (0)", ",", "+ (3)"), ranked=(("␣+", 0.89), (",", 0.04)))
    assert shown_answer("words", code) == "+"  # not the option label that tells two "+" apart
    assert shown_answer("number", Answer("over 75 %", (), value=74.4213)) == "74.4"
    assert shown_answer("choice", code) == "+ (0)"
