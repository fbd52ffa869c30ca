"""Peer instruction's shift and predict-the-attention's comparison (attnviz.classroom.shift), the
store's `moves` behind the shift chart (against moves counted here from the votes sent), the
token labels a tap question offers, and the two reveal figures. Cheap: SQLite, no page."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.classroom import Store, StoreConfig
from attnviz.classroom.config import sqlite_url
from attnviz.classroom.shift import guesses_line, guesses_of, shift_line, shift_of
from attnviz.figures.classroom_reveal import guesses_figure, shift_figure
from attnviz.topics.scene import Answer, token_labels
from tests.support import classroom

make_store, store, postgres_url = classroom.make_store, classroom.store, classroom.postgres_url

OPTIONS = ("cherry", "lemon", "plum")
VOTERS = [f"{i:032x}" for i in range(8)]
# a vote: (voter index, round, option index); later votes of a voter in a round are duplicates
VOTE = st.tuples(st.integers(0, 7), st.integers(1, 2), st.integers(0, 2))


def counted_moves(events) -> Counter:
    """The oracle: each voter's first vote in round 1 and in round 2, paired."""
    first: dict[tuple[int, int], str] = {}
    for voter, number, option in events:
        first.setdefault((voter, number), OPTIONS[option])
    return Counter(
        (first[(v, 1)], first[(v, 2)])
        for v in range(len(VOTERS))
        if (v, 1) in first and (v, 2) in first
    )


def cast(store: Store, code: str, key: str, events, step: int = 1) -> None:
    for number in (1, 2):
        store.open_round(code, key, step, OPTIONS, number)
        for voter, n, option in events:
            if n == number:
                store.vote(code, VOTERS[voter], OPTIONS[option])


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events=st.lists(VOTE, max_size=24), noise=st.lists(VOTE, max_size=6))
def test_moves_pair_each_voters_first_votes_of_the_two_rounds(tmp_path_factory, events, noise):
    path = tmp_path_factory.mktemp("shift") / "classroom.sqlite3"
    store = Store(StoreConfig(url=sqlite_url(path)))
    code, key = store.open_room("kernel")
    other, other_key = store.open_room("kernel")
    cast(store, code, key, noise, step=2)  # another step of the same room
    cast(store, other, other_key, events)  # the same votes in another room
    cast(store, code, key, events)
    assert store.moves(code, 1) == dict(counted_moves(events))
    store.dispose()


def test_moves_on_both_databases(store):
    code, key = store.open_room("kernel")
    events = [(0, 1, 0), (0, 2, 1), (1, 1, 1), (1, 2, 1), (2, 1, 2), (3, 2, 0)]
    cast(store, code, key, events)
    assert store.moves(code, 1) == {("cherry", "lemon"): 1, ("lemon", "lemon"): 1}
    assert store.moves(code, 5) == {}


def test_the_shift_counts_who_changed_and_who_moved_to_or_from_the_answer():
    pairs = [("cherry", "lemon")] * 5 + [("lemon", "lemon")] * 3 + [("lemon", "plum")] * 2
    pairs += [("plum", "plum")] * 4 + [("plum", "cherry")]
    shift = shift_of(Counter(pairs), OPTIONS, OPTIONS, answer="lemon")
    assert shift.voters == len(pairs) == 15
    assert shift.changed == sum(a != b for a, b in pairs) == 8
    assert shift.to_answer == sum(a != "lemon" and b == "lemon" for a, b in pairs) == 5
    assert shift.from_answer == sum(a == "lemon" and b != "lemon" for a, b in pairs) == 2
    assert shift.matrix.tolist() == [[0, 5, 0], [0, 3, 2], [1, 0, 4]]
    assert shift_line(shift) == (
        "8 of 15 students who voted twice changed their answer: 5 moved to the right answer, "
        "2 moved away from it."
    )
    with pytest.raises(ValueError, match="not between the options"):
        shift_of({("cherry", "mango"): 1}, OPTIONS, OPTIONS)


def test_guesses_compare_the_class_with_the_head():
    counts = {"the": 1, "cat": 3, "sat": 0}
    found = guesses_of(counts, [0.1, 0.05, 0.35])  # renormalized: 0.2, 0.1, 0.7
    assert found.share.tolist() == [0.25, 0.75, 0.0]
    assert found.weights == pytest.approx([0.2, 0.1, 0.7])
    assert found.distance == pytest.approx(0.5 * (0.05 + 0.65 + 0.7))
    assert (found.top, found.wrong, found.votes) == ("sat", ("cat", 3), 4)
    assert "the most popular wrong guess: “cat” (3 taps)" in guesses_line(found)
    right = guesses_of({"the": 0, "cat": 0, "sat": 5}, [0.2, 0.1, 0.7])
    assert right.wrong is None and right.distance == pytest.approx(0.3)
    with pytest.raises(ValueError):
        guesses_of(counts, [0.5, 0.5])


def test_token_labels_are_distinct_storable_and_say_where_a_repeat_is():
    tokens = ["the", " cat", "\n", " ", "the", "x" * 40, "▁piano"]
    labels = ("the (0)", "cat", "⏎", "␣", "the (4)", "x" * 29 + "…", "piano")
    assert token_labels(tokens) == labels
    answer = Answer.of_row(tokens, [0.1, 0.2, 0.0, 0.0, 0.6, 0.1, 0.0])
    assert (answer.answer, answer.weights[4]) == ("the (4)", 0.6)


def test_reveal_figures_hold_the_counts_and_escape_tokens():
    shift = shift_of({("cherry", "lemon"): 2, ("plum", "plum"): 1}, OPTIONS, OPTIONS, "lemon")
    figure = shift_figure(shift.before, shift.after, shift.matrix, shift.answer)
    assert np.asarray(figure.data[0].z).tolist() == [[0, 2, 0], [0, 0, 0], [0, 0, 1]]
    assert list(figure.data[0].x) == ["A", "B ✓", "C"]  # the letters of the votes chart
    assert figure.data[0].customdata[0][1] == ["cherry", "lemon"]
    found = guesses_of({"<b>x</b>": 2, "y": 0}, [0.3, 0.7])
    drawn = guesses_figure(found.tokens, [("class", found.share)], found.weights, found.votes)
    assert np.allclose(np.asarray(drawn.data[0].z), [[1.0, 0.0], [0.3, 0.7]])
    assert "&lt;b&gt;x&lt;/b&gt;" in drawn.data[0].x and "y ✓" in drawn.data[0].x


def test_after_two_rounds_the_guesses_figure_has_both_rounds_above_the_head():
    first = guesses_of({"a": 2, "b": 0}, [0.25, 0.75])
    second = guesses_of({"a": 1, "b": 3}, [0.25, 0.75])
    taps = [("round 1", first.share), ("round 2", second.share)]
    drawn = guesses_figure(second.tokens, taps, second.weights, second.votes)
    assert list(drawn.data[0].y) == ["round 1", "round 2", "the head's weights"]
    assert np.allclose(np.asarray(drawn.data[0].z), [[1, 0], [0.25, 0.75], [0.25, 0.75]])


def test_one_tap_is_one_tap():
    line = guesses_line(guesses_of({"a": 1, "b": 0}, [0.1, 0.9]))
    assert line.startswith("1 tap;") and "(1 tap)." in line
