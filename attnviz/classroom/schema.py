"""The classroom's tables (SQLAlchemy Core) and the engine that reaches them.

rooms: one per lecture (code, the presenter key's hash, lesson, current step, expiry);
rounds: a question asked on a step, round 1 or 2 (peer instruction), open/closed, revealed;
votes: one row per voter per round, enforced by UNIQUE(round_id, voter), not by a read first;
sure: how sure a voter was of that vote (1–5), when given, written in the vote's transaction;
hidden: the words a presenter hid from the class's word cloud on a step (moderation).

Tables are made with `metadata.create_all` (idempotent: it creates only what is missing). v1 needs
no migrations; a later change of columns would bring Alembic in.
SQLite runs in WAL mode with a busy timeout, and every write transaction starts with
BEGIN IMMEDIATE (a deferred one that reads, then writes, fails at once when another writer got
in between, instead of waiting its turn).
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from attnviz.classroom.config import StoreConfig
from attnviz.classroom.errors import StoreConfigError

READ_ONLY = "attnviz_read_only"  # execution option: this transaction only reads (SQLite: BEGIN)

metadata = MetaData()

rooms = Table(
    "classroom_rooms",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("code", String(6), nullable=False, unique=True),
    Column("key_hash", String(64), nullable=False),
    Column("lesson", String(200), nullable=False),
    Column("step", Integer, nullable=False, default=0),
    Column("created_at", Float, nullable=False),  # seconds since the epoch (time.time())
    Column("expires_at", Float, nullable=False, index=True),
)

rounds = Table(
    "classroom_rounds",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("room_id", ForeignKey("classroom_rooms.id", ondelete="CASCADE"), nullable=False),
    Column("step", Integer, nullable=False),
    Column("number", Integer, nullable=False),
    # a JSON list of the options' labels, or {"kind": "words"|"number"} for typed answers
    Column("options", Text, nullable=False),
    Column("is_open", Boolean, nullable=False, default=True),
    Column("revealed", Boolean, nullable=False, default=False),
    Column("opened_at", Float, nullable=False),
    UniqueConstraint("room_id", "step", "number", name="one_round_per_step_and_number"),
    CheckConstraint("number IN (1, 2)", name="round_is_1_or_2"),
)

votes = Table(
    "classroom_votes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("round_id", ForeignKey("classroom_rounds.id", ondelete="CASCADE"), nullable=False),
    Column("voter", String(32), nullable=False),
    Column("option", String(200), nullable=False),
    Column("cast_at", Float, nullable=False),
    UniqueConstraint("round_id", "voter", name="one_vote_per_voter_per_round"),
)

sure = Table(
    "classroom_sure",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("round_id", ForeignKey("classroom_rounds.id", ondelete="CASCADE"), nullable=False),
    Column("voter", String(32), nullable=False),
    Column("level", Integer, nullable=False),
    UniqueConstraint("round_id", "voter", name="one_level_per_voter_per_round"),
    CheckConstraint("level BETWEEN 1 AND 5", name="level_is_1_to_5"),
)

hidden = Table(
    "classroom_hidden",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("room_id", ForeignKey("classroom_rooms.id", ondelete="CASCADE"), nullable=False),
    Column("step", Integer, nullable=False),
    Column("word", String(200), nullable=False),
    UniqueConstraint("room_id", "step", "word", name="one_hidden_word_per_step"),
)


def make_engine(config: StoreConfig) -> Engine:
    """An engine for `config.url`; SQLite files get WAL, a busy timeout and foreign keys."""
    try:
        url = make_url(config.url)
        if config.is_sqlite:
            engine = create_engine(url, pool_size=config.pool_size, pool_pre_ping=True)
            _sqlite_pragmas(engine, config.busy_timeout_ms)
            return engine
        return create_engine(url, pool_size=config.pool_size, pool_pre_ping=True)
    except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as exc:
        shown = _safe_url(config.url)
        raise StoreConfigError(
            f"The classroom's database URL {shown!r} cannot be used ({type(exc).__name__}); "
            "expected sqlite:///path or postgresql+psycopg://user@host/database."
        ) from None


def _safe_url(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # any unparsable text: show none of it
        return "(unparsable)"


def _sqlite_pragmas(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" below emits BEGIN
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL's safe setting: no loss on app crash
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        read_only = connection.get_execution_options().get(READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")
