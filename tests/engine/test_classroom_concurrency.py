"""Eight threads voting at once (each with its own connection from the pool), some voter ids
sent from two threads at the same moment: every accepted vote is counted exactly once, every
voter once, and no vote fails (SQLite: WAL, BEGIN IMMEDIATE, busy timeout; PostgreSQL: the
UNIQUE constraint)."""

from __future__ import annotations

import threading
from collections import Counter

from attnviz.classroom import VoteResult
from tests.support import classroom

# the fixtures, parametrized over sqlite and postgresql
make_store, store, postgres_url = classroom.make_store, classroom.store, classroom.postgres_url

THREADS, PER_THREAD, OVERLAP = 8, 30, 10  # thread t votes for voters t*20 .. t*20+29
OPTIONS = ("a", "b", "c")


def test_eight_threads_voting_count_every_accepted_vote_once(make_store):
    store = make_store(pool_size=THREADS)
    code, key = store.open_room("load")
    store.open_round(code, key, 1, OPTIONS)
    start = threading.Barrier(THREADS)
    results: list[tuple[str, str, VoteResult]] = []
    errors: list[BaseException] = []

    def student_batch(t: int) -> None:
        start.wait()
        for i in range(t * (PER_THREAD - OVERLAP), t * (PER_THREAD - OVERLAP) + PER_THREAD):
            voter, option = f"{i:032x}", OPTIONS[(i + t) % 3]  # a shared id: two options
            try:
                results.append((voter, option, store.vote(code, voter, option)))
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

    threads = [threading.Thread(target=student_batch, args=(t,)) for t in range(THREADS)]
    [thread.start() for thread in threads]
    [thread.join(60) for thread in threads]
    assert errors == []
    assert len(results) == THREADS * PER_THREAD
    accepted = [(voter, option) for voter, option, r in results if r == VoteResult.ACCEPTED]
    voters = {voter for voter, _, _ in results}
    assert sorted(voter for voter, _ in accepted) == sorted(voters)  # each voter exactly once
    assert {r for _, _, r in results} <= {VoteResult.ACCEPTED, VoteResult.DUPLICATE}
    assert store.counts(code, 1) == {o: Counter(o for _, o in accepted)[o] for o in OPTIONS}
