"""Where the classroom's database lives: `ATTNVIZ_DATABASE_URL` if set (e.g.
`postgresql+psycopg://user:password@host/attnviz`, shared by every replica), else an SQLite file
in the user's data folder (one machine, no setup; WAL mode lets many readers share it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

URL_VARIABLE = "ATTNVIZ_DATABASE_URL"
HOURS = 3600.0


def default_database_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_DATA_HOME/attnviz/classroom.sqlite3` (`~/.local/share/attnviz/...` by default)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or str(Path("~/.local/share").expanduser())
    return Path(base) / "attnviz" / "classroom.sqlite3"


def sqlite_url(path: Path) -> str:
    """The SQLAlchemy URL of an SQLite file."""
    return f"sqlite:///{Path(path).resolve()}"


@dataclass(frozen=True)
class StoreConfig:
    """How to reach the database and how long rooms live.

    url: an SQLAlchemy URL (`sqlite:///…` or `postgresql+psycopg://…`).
    room_ttl_s: a room expires this long after it was opened (a lecture and then some).
    busy_timeout_ms: how long an SQLite writer waits for another writer before giving up.
    pool_size: connections kept per process (PostgreSQL; SQLite uses the same pool).
    """

    url: str
    room_ttl_s: float = 12 * HOURS
    busy_timeout_ms: int = 5000
    pool_size: int = 5

    @property
    def is_sqlite(self) -> bool:
        return self.url.startswith("sqlite")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> StoreConfig:
        """The URL in `ATTNVIZ_DATABASE_URL`, else the default SQLite file (folder created)."""
        env = os.environ if environ is None else environ
        url = env.get(URL_VARIABLE, "").strip()
        if url:
            return cls(url=url)
        path = default_database_path(env)
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(url=sqlite_url(path))
