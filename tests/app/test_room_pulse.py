"""The room's pulse (attnviz.ui.lecture.pulse), its endpoint called as Starlette calls it: a
room's step and open round as the store has them, null for a closed, unknown or malformed code
(no key, no vote, no error page), a store that is down answered 503, and each code read from the
store at most once per FRESH_S however often phones ask."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from starlette.requests import Request

from attnviz.classroom import Store, StoreConfig, StoreUnavailable
from attnviz.classroom.config import URL_VARIABLE, sqlite_url
from attnviz.ui.lecture import pulse


def get(code: str) -> SimpleNamespace:
    """GET /_attnviz/room/<code> as the route hands it to the endpoint."""
    request = Request({"type": "http", "method": "GET", "path_params": {"code": code}})
    answer = asyncio.run(pulse.answer(request))
    body = bytes(answer.body).decode()
    return SimpleNamespace(status=answer.status_code, headers=answer.headers, text=body)


@pytest.fixture
def store(monkeypatch, tmp_path):
    url = sqlite_url(tmp_path / "pulse.sqlite3")
    monkeypatch.setenv(URL_VARIABLE, url)
    pulse._store.cache_clear()
    pulse._SEEN.clear()
    made = Store(StoreConfig(url=url))
    yield made
    made.dispose()
    pulse._store().dispose()
    pulse._store.cache_clear()
    pulse._SEEN.clear()


def test_the_pulse_says_the_step_and_round_and_nothing_else(store):
    code, key = store.open_room("01_select_to_self_attention")
    store.set_step(code, key, 4)
    store.open_round(code, key, 4, ["a", "b"], 2)
    found = get(code.lower())  # as typed: the code is read as the join box reads it
    assert json.loads(found.text) == {"s": [4, 4, 2]}
    assert found.headers["cache-control"] == "no-store"
    assert key not in found.text
    store.close_room(code, key)
    pulse._SEEN.clear()  # FRESH_S has passed
    assert json.loads(get(code).text) == {"s": None}
    for junk in ("ZZZZZZ", "<b>", "x" * 300):
        assert json.loads(get(junk).text) == {"s": None}


def test_a_hall_asking_reads_the_store_once_per_fresh_interval(store, monkeypatch):
    code, _ = store.open_room("01_select_to_self_attention")
    reads = []
    join = Store.join
    monkeypatch.setattr(Store, "join", lambda self, c: reads.append(c) or join(self, c))
    answers = {get(code).text for _ in range(50)}
    assert answers == {'{"s":[0,null,null]}'} and len(reads) == 1

    def down(self, c):
        raise StoreUnavailable()

    monkeypatch.setattr(Store, "join", down)
    pulse._SEEN.clear()
    assert get(code).status == 503
