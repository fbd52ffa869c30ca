"""Fixtures for the classroom store's tests: `make_store` builds a `Store` on SQLite (a file in
tmp_path) or on a real PostgreSQL server (one per test session and xdist worker, see
tests/support/postgres.py); both are parametrized, the PostgreSQL side marked `slow`.
Import them into a test module: `from tests.support.classroom import make_store, store`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from attnviz.classroom import Store, StoreConfig
from attnviz.classroom.config import sqlite_url
from tests.support.postgres import postgres_marks, postgres_server

BACKENDS = [
    "sqlite",
    pytest.param("postgresql", marks=postgres_marks()),
]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a PostgreSQL server started for this session (and xdist worker)."""
    with postgres_server() as server:
        yield server.url


@pytest.fixture(params=BACKENDS)
def make_store(request, tmp_path) -> Iterator[Callable[..., Store]]:
    """`make_store(clock=time.time, **config)`: a Store on this test's backend."""
    made: list[Store] = []

    def build(clock: Callable[[], float] = time.time, **config) -> Store:
        if request.param == "sqlite":
            url = sqlite_url(tmp_path / "classroom.sqlite3")
        else:
            url = request.getfixturevalue("postgres_url")
        made.append(Store(StoreConfig(url=url, **config), clock=clock))
        return made[-1]

    yield build
    for built in made:
        built.dispose()


@pytest.fixture
def store(make_store) -> Store:
    """A Store on this test's backend with the real clock."""
    return make_store()
