"""The classroom store's rules, on SQLite and on a real PostgreSQL server (the `store` fixture is
parametrized; the PostgreSQL side is `slow`): who may steer a room, one vote per voter per round
(against an oracle computed here from the votes sent), rounds 1 and 2 apart, closed rounds,
the CSV export, expiry."""

from __future__ import annotations

import csv
import io
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from attnviz.classroom import BadInput, NoSuchRoom, NotPresenter, Store, StoreConfig, VoteResult
from attnviz.classroom.config import sqlite_url
from attnviz.classroom.schema import rooms, rounds, votes
from tests.support import classroom

# the fixtures, parametrized over sqlite and postgresql
make_store, store, postgres_url = classroom.make_store, classroom.store, classroom.postgres_url

OPTIONS = ("cherry", "lemon", "plum")
VOTERS = [f"{i:032x}" for i in range(6)]  # the shape a browser's uuid4().hex has


def presenter_calls(code: str, key: str) -> dict:
    return {
        "set_step": lambda s: s.set_step(code, key, 3),
        "open_round": lambda s: s.open_round(code, key, 1, OPTIONS),
        "close_round": lambda s: s.close_round(code, key, 1),
        "reveal": lambda s: s.reveal(code, key, 1),
        "export_csv": lambda s: s.export_csv(code, key),
        "close_room": lambda s: s.close_room(code, key),
    }


def test_a_student_cannot_steer_the_room_with_the_code_an_edited_key_or_another_rooms_key(store):
    code, key = store.open_room("kernel")
    _, other_key = store.open_room("kernel")
    store.open_round(code, key, 1, OPTIONS)
    edited = key[:-1] + ("A" if key[-1] != "A" else "B")
    for wrong in (
        code,
        code.lower(),
        "",
        None,
        edited,
        key[:-1],
        key + "x",
        other_key,
        key.upper(),
    ):
        for name, call in presenter_calls(code, wrong).items():
            with pytest.raises(NotPresenter, match="Only the presenter"):
                call(store)
            assert store.join(code).step == 0, name
    assert store.join(code).open_round is not None  # nothing was closed either
    store.set_step(code, key, 4)  # the real key still works
    assert store.join(code).step == 4


def test_an_edited_code_names_no_room_and_the_key_is_not_stored(store):
    code, key = store.open_room("kernel")
    edited = ("B" if code[0] != "B" else "C") + code[1:]
    for wrong in (edited, code + "A", "<b>ABCDEF</b>", "O0I1OO"):
        with pytest.raises(NoSuchRoom) as caught:
            store.join(wrong)
        assert "<b>" not in str(caught.value)
    assert store.join(f" {code[:3].lower()}-{code[3:]} ").code == code  # typed loosely: same room
    with store.engine.connect() as conn:
        stored = conn.execute(select(rooms).where(rooms.c.code == code)).one()
    assert key not in [str(value) for value in stored]


def test_round_two_is_counted_apart_from_round_one(store):
    code, key = store.open_room("kernel")
    store.open_round(code, key, 2, OPTIONS, number=1)
    assert store.vote(code, VOTERS[0], "cherry") == VoteResult.ACCEPTED
    assert store.vote(code, VOTERS[1], "lemon") == VoteResult.ACCEPTED
    store.open_round(code, key, 2, OPTIONS, number=2)
    assert store.vote(code, VOTERS[0], "lemon") == VoteResult.ACCEPTED  # a new round: a new vote
    assert store.vote(code, VOTERS[0], "plum") == VoteResult.DUPLICATE
    assert store.counts(code, 2, 1) == {"cherry": 1, "lemon": 1, "plum": 0}
    assert store.counts(code, 2, 2) == {"cherry": 0, "lemon": 1, "plum": 0}
    assert store.counts(code, 5, 1) == {}  # never asked
    assert store.join(code).open_round.number == 2


def test_a_closed_or_revealed_round_rejects_votes(store):
    code, key = store.open_room("kernel")
    assert store.vote(code, VOTERS[0], "cherry") == VoteResult.CLOSED  # nothing asked yet
    store.open_round(code, key, 1, OPTIONS)
    assert store.vote(code, VOTERS[0], "cherry", step=1, number=2) == VoteResult.CLOSED
    assert store.vote(code, VOTERS[0], "grape") == VoteResult.UNKNOWN_OPTION
    assert store.vote(code, VOTERS[0], "cherry", step=1, number=1) == VoteResult.ACCEPTED
    store.close_round(code, key, 1)
    assert store.vote(code, VOTERS[1], "cherry") == VoteResult.CLOSED
    assert store.join(code).open_round is None
    store.open_round(code, key, 1, OPTIONS)  # reopened with its votes
    assert store.vote(code, VOTERS[0], "plum") == VoteResult.DUPLICATE
    store.reveal(code, key, 1)
    assert store.vote(code, VOTERS[2], "plum") == VoteResult.CLOSED
    assert store.counts(code, 1) == {"cherry": 1, "lemon": 0, "plum": 0}
    store.open_round(code, key, 7, ("yes", "no"))
    store.open_round(code, key, 8, ("up", "down"))  # opening one closes the other
    assert store.vote(code, VOTERS[3], "yes") == VoteResult.UNKNOWN_OPTION
    with pytest.raises(BadInput, match="other options"):
        store.open_round(code, key, 7, ("yes", "no", "maybe"))


def test_the_csv_lists_every_option_of_every_round_and_no_voter(store):
    code, key = store.open_room("kernel")
    store.open_round(code, key, 3, ("a, b", "c"), number=1)
    for voter, option in zip(VOTERS[:3], ("a, b", "c", "c"), strict=True):
        store.vote(code, voter, option)
    store.open_round(code, key, 3, ("a, b", "c"), number=2)
    store.vote(code, VOTERS[0], "c")
    store.open_round(code, key, 1, ("yes", "no"))
    text = store.export_csv(code, key)
    expected = (
        "step,round,kind,answer,count\n"
        "1,1,choice,yes,0\n1,1,choice,no,0\n"
        '3,1,choice,"a, b",1\n3,1,choice,c,2\n'
        '3,2,choice,"a, b",0\n3,2,choice,c,1\n'
    )
    assert text == expected
    assert not any(voter in text for voter in VOTERS)


def test_rooms_expire_with_their_rounds_and_votes(make_store):
    now = [1_000_000.0]
    store = make_store(clock=lambda: now[0], room_ttl_s=60)
    store.expire(now=10**12)  # the PostgreSQL server is shared: start from no room
    code, key = store.open_room("kernel")
    store.open_round(code, key, 1, OPTIONS)
    store.vote(code, VOTERS[0], "plum")
    now[0] += 59
    later, later_key = store.open_room("attention")
    assert store.join(code).code == code
    now[0] += 2  # past the first room's expiry: gone at once, before expire() runs
    with pytest.raises(NoSuchRoom):
        store.join(code)
    with pytest.raises(NoSuchRoom):
        store.vote(code, VOTERS[1], "plum")
    assert store.expire() == 1
    with store.engine.connect() as conn:
        assert conn.execute(select(rooms.c.code)).scalars().all() == [later]
        assert conn.execute(select(rounds.c.id)).all() == []
        assert conn.execute(select(votes.c.id)).all() == []
    store.close_room(later, later_key)
    with pytest.raises(NoSuchRoom):
        store.join(later)


@pytest.mark.parametrize(
    "call",
    [
        lambda s, c, k: s.vote(c, "ABCDEF" + "0" * 26, "plum"),  # upper case
        lambda s, c, k: s.vote(c, "1234", "plum"),
        lambda s, c, k: s.vote(c, "12345678-1234-5678-1234-567812345678", "plum"),
        lambda s, c, k: s.vote(c, None, "plum"),
        lambda s, c, k: s.open_round(c, k, 1, ["only one"]),
        lambda s, c, k: s.open_round(c, k, 1, ["same", "same "]),
        lambda s, c, k: s.open_round(c, k, 1, "ab"),
        lambda s, c, k: s.open_round(c, k, 1, OPTIONS, number=3),
        lambda s, c, k: s.set_step(c, k, -1),
        lambda s, c, k: s.set_step(c, k, True),
        lambda s, c, k: s.counts(c, 1, 0),
        lambda s, c, k: s.reveal(c, k, 9),
        lambda s, c, k: s.open_room(""),
    ],
)
def test_bad_input_gets_a_message(store, call):
    code, key = store.open_room("kernel")
    with pytest.raises(BadInput) as caught:
        call(store, code, key)
    assert str(caught.value).endswith(".")


# --- one vote per voter per round, against an oracle -----------------------------------------

VOTE = st.tuples(
    st.just("vote"), st.integers(0, len(VOTERS) - 1), st.sampled_from(OPTIONS + ("x",))
)
EVENTS = st.lists(st.one_of(VOTE, VOTE, st.tuples(st.just("round"), st.sampled_from([1, 2]))))


def oracle(events: list[tuple]) -> tuple[list[VoteResult], dict[int, dict[str, int]]]:
    """Each vote's fate and the counts: a voter's first vote with a known option in the round
    open at that moment counts; later ones are duplicates. A round never opened has no counts."""
    number, first_votes, results, opened = 1, {}, [], {1}
    for event in events:
        if event[0] == "round":
            number = event[1]
            opened.add(number)
        elif event[2] not in OPTIONS:
            results.append(VoteResult.UNKNOWN_OPTION)
        elif (event[1], number) in first_votes:
            results.append(VoteResult.DUPLICATE)
        else:
            first_votes[(event[1], number)] = event[2]
            results.append(VoteResult.ACCEPTED)
    tallies = {n: Counter(o for (_, r), o in first_votes.items() if r == n) for n in (1, 2)}
    counts = {n: {o: tallies[n][o] for o in OPTIONS} if n in opened else {} for n in (1, 2)}
    return results, counts


def check_against_oracle(store: Store, events: list[tuple]) -> None:
    code, key = store.open_room("oracle")
    store.open_round(code, key, 1, OPTIONS, number=1)
    results = []
    for event in events:
        if event[0] == "round":
            store.open_round(code, key, 1, OPTIONS, number=event[1])
        else:
            results.append(store.vote(code, VOTERS[event[1]], event[2]))
    want_results, want_counts = oracle(events)
    assert results == want_results
    assert {n: store.counts(code, 1, n) for n in (1, 2)} == want_counts


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events=EVENTS)
def test_one_vote_per_voter_per_round_matches_the_oracle(store, events):
    check_against_oracle(store, events)


class LastVoteWins(Store):
    """A deliberately wrong store: a second vote replaces the first instead of being refused."""

    def vote(self, code, voter_id, option, step=None, number=None):
        result = super().vote(code, voter_id, option, step, number)
        if result == VoteResult.DUPLICATE:
            with self.engine.begin() as conn:
                conn.execute(update(votes).where(votes.c.voter == voter_id).values(option=option))
            return VoteResult.ACCEPTED
        return result


def test_the_oracle_catches_a_store_where_the_last_vote_wins(tmp_path):
    wrong = LastVoteWins(StoreConfig(url=sqlite_url(tmp_path / "wrong.sqlite3")))
    with pytest.raises(AssertionError):
        check_against_oracle(wrong, [("vote", 0, "cherry"), ("vote", 0, "plum")])
    check_against_oracle(wrong, [("vote", 0, "cherry"), ("vote", 1, "plum")])  # no repeat: fine
    wrong.dispose()


def test_options_a_spreadsheet_would_run_are_written_as_text(store):
    code, key = store.open_room("kernel")
    options = ('=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "plain", "a=b")
    store.open_round(code, key, 2, options)
    store.vote(code, VOTERS[0], "+1")
    rows = list(csv.reader(io.StringIO(store.export_csv(code, key))))[1:]
    cells = [row[3] for row in rows]
    assert cells == ["'" + o if o[0] in "=+-@" else o for o in options]
    assert [row[4] for row in rows] == ["0", "1", "0", "0", "0", "0"]


@pytest.mark.parametrize("text", ["\ud800", "ok\udfff", "nul\x00"])
def test_text_the_databases_cannot_hold_is_refused_with_the_stores_own_error(store, text):
    with pytest.raises(BadInput, match="not text|NUL"):
        store.open_room(text)
    code, key = store.open_room("kernel")
    with pytest.raises(BadInput, match="not text|NUL"):
        store.open_round(code, key, 1, ("yes", text))


def test_a_voters_own_vote_in_the_open_round_is_read_back(store):
    code, key = store.open_room("kernel")
    store.open_round(code, key, 2, OPTIONS)
    assert store.my_vote(code, VOTERS[0]) is None
    store.vote(code, VOTERS[0], "lemon")
    store.vote(code, VOTERS[1], "plum")
    assert (store.my_vote(code, VOTERS[0]), store.my_vote(code, VOTERS[1])) == ("lemon", "plum")
    store.open_round(code, key, 2, OPTIONS, number=2)  # a new round: nothing cast in it yet
    assert store.my_vote(code, VOTERS[0]) is None
    with pytest.raises(BadInput):
        store.my_vote(code, "not a voter id")
