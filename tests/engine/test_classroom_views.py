"""The classroom views' pure logic (attnviz.classroom.views), the room's answers figure
(attnviz.figures.classroom) and the store's additions for them (`results`, `check_presenter`),
on SQLite: cheap, no page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from attnviz.classroom import NotPresenter, RoomState, RoundState, Store, StoreConfig, VoteResult
from attnviz.classroom.config import sqlite_url
from attnviz.classroom.views import (
    count_line,
    followed_step,
    is_revealed,
    next_round,
    presenter_path,
    round_counts,
    signature,
    students_room_path,
    vote_note,
)
from attnviz.figures.classroom import votes_figure

OPTIONS = ("apple", "<b>pear</b>", "kiwi")


def test_a_student_follows_the_rooms_step_clamped_into_the_lesson():
    assert [followed_step(s, 5) for s in (0, 1, 3, 5, 9)] == [1, 1, 3, 5, 5]
    with pytest.raises(ValueError):
        followed_step(1, 0)


def test_the_signature_changes_with_the_step_and_the_open_round():
    open_1 = RoundState(3, 1, OPTIONS, True, False)
    states = [RoomState("ABCDEF", "l", 3, 0.0, r) for r in (None, open_1)]
    states.append(RoomState("ABCDEF", "l", 4, 0.0, None))
    assert len({signature(s) for s in states}) == 3


def test_the_students_link_holds_the_room_and_never_the_key():
    assert parse_qs(urlsplit(students_room_path("K7QP2M")).query) == {"room": ["K7QP2M"]}
    link = urlsplit(presenter_path("soft-select", "intro", 4, "K7QP2M", "s3cr/t+="))
    assert link.path == "/soft-select"
    query = parse_qs(link.query)
    assert query == {
        "lesson": ["intro"],
        "step": ["4"],
        "room": ["K7QP2M"],
        "room_key": ["s3cr/t+="],
    }


def test_rounds_open_in_order_and_words_follow_outcomes():
    r = {n: RoundState(2, n, OPTIONS, False, n == 2) for n in (1, 2)}
    assert [next_round([]), next_round([r[1]]), next_round([r[1], r[2]])] == [1, 2, None]
    assert next_round([r[2]]) == 1
    assert vote_note(VoteResult.ACCEPTED, "kiwi") == ("success", "Your vote: kiwi")
    assert "already voted" in vote_note(VoteResult.DUPLICATE, "kiwi")[1]
    assert {vote_note(v, "x")[0] for v in (VoteResult.CLOSED, VoteResult.UNKNOWN_OPTION)} == {
        "warning"
    }
    assert [count_line(n) for n in (0, 1, 37)] == ["0 votes", "1 vote", "37 votes"]
    assert not is_revealed([(r[1], {})]) and is_revealed([(r[1], {}), (r[2], {})])


def test_the_figure_groups_rounds_per_option_escapes_labels_and_marks_the_answer():
    rounds = [(1, {"apple": 3, "<b>pear</b>": 0, "kiwi": 5}), (2, {"apple": 1, "kiwi": 9})]
    fig = votes_figure(rounds, answer="kiwi").to_dict()
    assert fig["layout"]["barmode"] == "group"
    assert [list(t["y"]) for t in fig["data"]] == [[3, 0, 5], [1, 0, 9]]
    assert list(fig["data"][0]["x"]) == ["apple", "&lt;b&gt;pear&lt;/b&gt;", "kiwi ✓"]
    assert fig["layout"]["shapes"][0]["x0"] == 1.5  # the third option's band
    assert "shapes" not in votes_figure(rounds[:1], answer=None).to_dict()["layout"]
    with pytest.raises(ValueError):
        votes_figure([])


@pytest.fixture
def store(tmp_path):
    made = Store(StoreConfig(url=sqlite_url(tmp_path / "c.sqlite3")))
    yield made
    made.dispose()


def test_results_list_each_round_with_its_votes_and_presenters_are_checked(store):
    code, key = store.open_room("lesson")
    assert store.check_presenter(code.lower(), key) == code
    with pytest.raises(NotPresenter):
        store.check_presenter(code, key + "x")
    assert store.results(code, 2) == []
    store.open_round(code, key, 2, OPTIONS, 1)
    votes = ["apple", "kiwi", "kiwi"]
    for i, option in enumerate(votes):
        assert store.vote(code, f"{i:032x}", option) is VoteResult.ACCEPTED
    store.open_round(code, key, 2, OPTIONS, 2)
    store.vote(code, f"{9:032x}", "apple")
    store.reveal(code, key, 2, 2)
    got = store.results(code, 2)
    assert [found.number for found, _ in got] == [1, 2]
    expected_1 = {o: votes.count(o) for o in OPTIONS}
    assert round_counts(got) == [(1, expected_1), (2, {"apple": 1, OPTIONS[1]: 0, "kiwi": 0})]
    assert [found.revealed for found, _ in got] == [False, True]
