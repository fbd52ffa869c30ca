"""The PostgreSQL path end to end on a real server started in a temp folder (tests/support/
postgres.py): a room opened through one store is seen and voted in through another (two
replicas), and a server that goes away gives `StoreUnavailable` ("retrying…"), then recovers.
The store's rules run on PostgreSQL too: test_classroom_store.py's `store` fixture is
parametrized over sqlite and postgresql."""

from __future__ import annotations

import pytest

from attnviz.classroom import Store, StoreConfig, StoreUnavailable, VoteResult
from tests.support.postgres import postgres_marks, postgres_server

pytestmark = postgres_marks()


def test_two_replicas_share_a_room_and_survive_a_server_restart():
    with postgres_server() as server:
        first, second = (Store(StoreConfig(url=server.url)) for _ in range(2))
        code, key = first.open_room("kernel")
        second.open_round(code, key, 1, ("yes", "no"))  # the presenter's next request: replica 2
        assert first.vote(code, "a" * 32, "yes") == VoteResult.ACCEPTED
        assert second.vote(code, "a" * 32, "no") == VoteResult.DUPLICATE
        server.stop()
        for store in (first, second):
            with pytest.raises(StoreUnavailable, match="retrying"):
                store.vote(code, "b" * 32, "no")
        server.start()
        assert second.vote(code, "b" * 32, "no") == VoteResult.ACCEPTED  # pooled links renewed
        assert first.counts(code, 1) == {"yes": 1, "no": 1}
        first.dispose()
        second.dispose()
