"""Room codes, presenter keys, voter ids, the database URL from the environment, and a database
that cannot be reached (StoreUnavailable, a message for a person, not the driver's error)."""

from __future__ import annotations

import sqlite3
import string

import pytest

from attnviz.classroom import Store, StoreConfig, StoreConfigError, StoreUnavailable
from attnviz.classroom.config import URL_VARIABLE, sqlite_url
from attnviz.classroom.tokens import (
    hash_key,
    is_voter_id,
    key_matches,
    new_presenter_key,
    new_room_code,
    new_voter_id,
    normalize_code,
)


def test_room_codes_are_six_unambiguous_characters():
    codes = {new_room_code() for _ in range(2000)}
    # 32**6 codes: a repeat in 2,000 draws has odds of ~0.2 % (it happened: 1,999 distinct),
    # ten repeats odds below 1e-20; a generator drawing from a few thousand codes makes hundreds
    assert len(codes) >= 1_990, len(codes)
    letters = set("".join(codes))
    assert all(len(code) == 6 for code in codes)
    assert letters <= set(string.ascii_uppercase + string.digits) - set("0O1I")
    assert len(letters) == 32  # the whole alphabet is used
    assert normalize_code(" ab-c23 4 ") == "ABC234"
    assert [normalize_code(t) for t in ("ABC23", "ABC2345", "ABC0O1", "ABÇ234", 7)] == [None] * 5


def test_keys_are_checked_against_their_hash_only():
    key = new_presenter_key()
    assert len(key) >= 40 and key != new_presenter_key()
    stored = hash_key(key)
    assert len(stored) == 64 and key not in stored
    assert key_matches(key, stored)
    assert not any(key_matches(k, stored) for k in (key[:-1], key + "=", "", None, stored))


def test_voter_ids_are_uuid4_hex_and_nothing_else():
    assert is_voter_id(new_voter_id()) and new_voter_id() != new_voter_id()
    bad = ["A" * 32, "g" * 32, "a" * 31, "a" * 33, "12345678-1234-5678-1234-567812345678", None, 5]
    assert not any(is_voter_id(b) for b in bad)


def test_the_database_url_comes_from_the_environment(tmp_path):
    url = "postgresql+psycopg://u:secret@db/attnviz"
    assert StoreConfig.from_env({URL_VARIABLE: url}).url == url
    default = StoreConfig.from_env({"XDG_DATA_HOME": str(tmp_path)})
    assert default.url == f"sqlite:///{tmp_path}/attnviz/classroom.sqlite3"
    assert (tmp_path / "attnviz").is_dir()
    with pytest.raises(StoreConfigError) as caught:
        Store(StoreConfig(url="mysql+nosuchdriver://u:secret@db/x"))
    assert "secret" not in str(caught.value)


def test_an_unreachable_or_locked_database_says_retrying(tmp_path):
    with pytest.raises(StoreUnavailable, match="retrying"):
        Store(StoreConfig(url=sqlite_url(tmp_path / "no" / "such" / "folder.sqlite3")))
    path = tmp_path / "busy.sqlite3"
    store = Store(StoreConfig(url=sqlite_url(path), busy_timeout_ms=50))
    code, key = store.open_room("kernel")
    store.open_round(code, key, 1, ("yes", "no"))
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock past the timeout
    with pytest.raises(StoreUnavailable, match="retrying"):
        store.vote(code, "c" * 32, "yes")
    other.execute("ROLLBACK")
    other.close()
    assert store.vote(code, "c" * 32, "yes").value == "accepted"  # the vote goes in on retry
    store.dispose()
