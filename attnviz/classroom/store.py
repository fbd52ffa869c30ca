"""The classroom store: rooms, steps, rounds and votes in one database shared by every replica.

Students call `join`, `vote` and `counts`; every other operation belongs to the presenter and
checks the presenter key first (`NotPresenter` otherwise). Errors a person can meet are
`ClassroomError`s with a message to show; a database that does not answer raises
`StoreUnavailable` ("retrying…"), never the driver's exception. A vote that was committed but
whose answer was lost returns `DUPLICATE` when sent again: the UI may treat it as recorded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from sqlalchemy import Connection, Row, delete, insert, select, update
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from attnviz.classroom import checks
from attnviz.classroom.config import StoreConfig
from attnviz.classroom.errors import BadInput, NoSuchRoom, NotPresenter, StoreUnavailable
from attnviz.classroom.reads import Reads, options_json, round_state
from attnviz.classroom.schema import (
    READ_ONLY,
    hidden,
    make_engine,
    metadata,
    rooms,
    rounds,
    sure,
    votes,
)
from attnviz.classroom.states import RoomState, RoundState, VoteResult
from attnviz.classroom.tokens import (
    hash_key,
    key_matches,
    new_presenter_key,
    new_room_code,
    normalize_code,
)
from attnviz.lessons.typed_answers import CHOICE, FREE_KINDS, accepted

UNREACHABLE = (OperationalError, InterfaceError, PoolTimeout)
CODE_TRIES = 8  # a fresh code collides with a live room about once in 10**9 / rooms


def _is_shown(found: Row, step: int | None, number: int | None) -> bool:
    """Whether the open round `found` is the one the phone showed (None: any)."""
    return (step is None or found.step == step) and (number is None or found.number == number)


class Store(Reads):
    """The classroom's operations over one database (see the module docstring); what the
    projector and phones read back is in `Reads` (attnviz.classroom.reads)."""

    def __init__(self, config: StoreConfig, clock: Callable[[], float] = time.time) -> None:
        """Connect and create the tables that are missing (`create_all` is idempotent)."""
        self.config = config
        self.clock = clock
        self.engine = make_engine(config)
        try:
            metadata.create_all(self.engine)
        except UNREACHABLE as exc:
            raise StoreUnavailable() from exc

    @classmethod
    def from_env(cls) -> Store:
        """The store `ATTNVIZ_DATABASE_URL` names, or the default SQLite file."""
        return cls(StoreConfig.from_env())

    def dispose(self) -> None:
        """Close the pooled connections."""
        self.engine.dispose()

    @contextmanager
    def _transaction(self, read_only: bool = False) -> Iterator[Connection]:
        try:
            with self.engine.connect() as conn:
                if read_only:
                    conn.execution_options(**{READ_ONLY: True})
                with conn.begin():
                    yield conn
        except UNREACHABLE as exc:
            raise StoreUnavailable() from exc

    def _room(self, conn: Connection, code: str) -> Row:
        normal = normalize_code(code)
        if normal is None:
            raise NoSuchRoom()
        query = select(rooms).where(rooms.c.code == normal, rooms.c.expires_at > self.clock())
        row = conn.execute(query).first()
        if row is None:
            raise NoSuchRoom(normal)
        return row

    def _presenter_room(self, conn: Connection, code: str, key: str) -> Row:
        room = self._room(conn, code)
        if not key_matches(key, room.key_hash):
            raise NotPresenter()
        return room

    def _round(self, conn: Connection, room_id: int, step: int, number: int) -> Row | None:
        query = select(rounds).where(
            rounds.c.room_id == room_id, rounds.c.step == step, rounds.c.number == number
        )
        return conn.execute(query).first()

    # --- rooms ---------------------------------------------------------------------------

    def open_room(self, lesson: str) -> tuple[str, str]:
        """Open a room for `lesson`: returns (room code, presenter key). The key is shown only
        here (it goes in the presenter's link); the store keeps its hash."""
        lesson = checks.check_label(lesson, "The lesson's name")
        self.expire()
        key = new_presenter_key()
        now = self.clock()
        for _ in range(CODE_TRIES):
            code = new_room_code()
            row = dict(code=code, key_hash=hash_key(key), lesson=lesson, step=0)
            row |= dict(created_at=now, expires_at=now + self.config.room_ttl_s)
            try:
                with self._transaction() as conn:
                    conn.execute(insert(rooms).values(**row))
                return code, key
            except IntegrityError:
                continue  # the code is taken: draw another
        raise StoreUnavailable()

    def join(self, code: str) -> RoomState:
        """The room a student's typed code names (`NoSuchRoom` if none): lesson, step, open
        round."""
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            query = select(rounds).where(rounds.c.room_id == room.id, rounds.c.is_open)
            open_row = conn.execute(query).first()
        open_round = None if open_row is None else round_state(open_row)
        return RoomState(room.code, room.lesson, room.step, room.expires_at, open_round)

    def check_presenter(self, code: str, key: str) -> str:
        """The room's code if `key` is its presenter key (`NotPresenter`/`NoSuchRoom` if not)."""
        with self._transaction(read_only=True) as conn:
            return self._presenter_room(conn, code, key).code

    def set_step(self, code: str, key: str, step: int) -> None:
        """Move the room to `step` (presenter only): students' devices follow."""
        step = checks.check_step(step)
        with self._transaction() as conn:
            room = self._presenter_room(conn, code, key)
            conn.execute(update(rooms).where(rooms.c.id == room.id).values(step=step))

    def close_room(self, code: str, key: str) -> None:
        """End the room now (presenter only): it is gone for everyone; `expire` removes it."""
        with self._transaction() as conn:
            room = self._presenter_room(conn, code, key)
            closed = update(rooms).where(rooms.c.id == room.id).values(expires_at=self.clock())
            conn.execute(closed)

    def expire(self, now: float | None = None) -> int:
        """Delete the rooms whose expiry is past (with their rounds and votes); how many."""
        now = self.clock() if now is None else now
        with self._transaction() as conn:
            gone = select(rooms.c.id).where(rooms.c.expires_at <= now)
            gone_rounds = select(rounds.c.id).where(rounds.c.room_id.in_(gone))
            conn.execute(delete(sure).where(sure.c.round_id.in_(gone_rounds)))
            conn.execute(delete(votes).where(votes.c.round_id.in_(gone_rounds)))
            conn.execute(delete(hidden).where(hidden.c.room_id.in_(gone)))
            conn.execute(delete(rounds).where(rounds.c.room_id.in_(gone)))
            return conn.execute(delete(rooms).where(rooms.c.expires_at <= now)).rowcount

    # --- rounds --------------------------------------------------------------------------

    def open_round(
        self,
        code: str,
        key: str,
        step: int,
        options: Sequence[str],
        number: int = 1,
        kind: str = CHOICE,
    ) -> RoundState:
        """Ask a question on `step` (presenter only): round `number` (1, or 2 after the
        discussion) opens and any other open round of the room closes. A `CHOICE` round takes
        its options; a typed round (`free.FREE_KINDS`) none. Opening a round again reopens it
        with its votes, if it is asked the same way."""
        step, number = checks.check_step(step), checks.check_number(number)
        labels = checks.check_options(options) if kind == CHOICE else ()
        if kind != CHOICE and (kind not in FREE_KINDS or options):
            raise BadInput(
                f"A round is one of {(CHOICE, *FREE_KINDS)}; a typed one has no options."
            )
        try:
            with self._transaction() as conn:
                room = self._presenter_room(conn, code, key)
                close_all = update(rounds).where(rounds.c.room_id == room.id, rounds.c.is_open)
                conn.execute(close_all.values(is_open=False))
                self._open_or_reopen(conn, room.id, step, number, options_json(kind, labels))
        except IntegrityError:  # the same round opened from another tab at the same moment
            raise BadInput("This round was just opened elsewhere; reload the page.") from None
        return RoundState(step, number, labels, is_open=True, revealed=False, kind=kind)

    def _open_or_reopen(
        self, conn: Connection, room_id: int, step: int, number: int, asked: str
    ) -> None:
        existing = self._round(conn, room_id, step, number)
        if existing is None:
            row = dict(room_id=room_id, step=step, number=number, options=asked)
            conn.execute(insert(rounds).values(**row, opened_at=self.clock()))
            return
        if existing.options != asked:
            raise BadInput(f"Round {number} of step {step} was asked with other options.")
        reopen = update(rounds).where(rounds.c.id == existing.id)
        conn.execute(reopen.values(is_open=True, revealed=False))

    def close_round(self, code: str, key: str, step: int, number: int = 1) -> None:
        """Stop taking votes in a round (presenter only)."""
        self._set_round(code, key, step, number, is_open=False)

    def reveal(self, code: str, key: str, step: int, number: int = 1) -> None:
        """Close a round and show its answers on the projector (presenter only)."""
        self._set_round(code, key, step, number, is_open=False, revealed=True)

    def _set_round(self, code: str, key: str, step: int, number: int, **values: bool) -> None:
        step, number = checks.check_step(step), checks.check_number(number)
        with self._transaction() as conn:
            room = self._presenter_room(conn, code, key)
            found = self._round(conn, room.id, step, number)
            if found is None:
                raise BadInput(f"Step {step} has no round {number} yet.")
            conn.execute(update(rounds).where(rounds.c.id == found.id).values(**values))

    # --- votes ---------------------------------------------------------------------------

    def my_vote(self, code: str, voter_id: str) -> str | None:
        """The option `voter_id` cast in the room's open round (None: none, or no round open):
        a phone reloaded after voting shows its vote instead of the buttons again."""
        voter = checks.check_voter(voter_id)
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            query = select(votes.c.option).join(rounds, rounds.c.id == votes.c.round_id)
            query = query.where(rounds.c.room_id == room.id, rounds.c.is_open)
            found = conn.execute(query.where(votes.c.voter == voter)).first()
        return None if found is None else found.option

    def vote(
        self,
        code: str,
        voter_id: str,
        option: str,
        step: int | None = None,
        number: int | None = None,
        sure_of: int | None = None,
    ) -> VoteResult:
        """Cast `voter_id`'s vote in the room's open round: `option` is one of its options, or
        the word or number typed (kept as `free.accepted` reads it). With `step`/`number` (the
        round the phone showed) a vote for a round that has since changed is `CLOSED`;
        `sure_of` (1–5) is how sure the voter is. One vote per voter per round: the table's
        UNIQUE constraint decides, so two devices racing with one id count once."""
        voter, level = checks.check_voter(voter_id), checks.check_sure(sure_of)
        try:
            with self._transaction() as conn:
                room = self._room(conn, code)
                query = select(rounds).where(rounds.c.room_id == room.id, rounds.c.is_open)
                found = conn.execute(query).first()
                if found is None or not _is_shown(found, step, number):
                    return VoteResult.CLOSED
                asked = round_state(found)
                answer = accepted(asked.kind, option, asked.options)
                if answer is None:
                    return VoteResult.UNKNOWN_OPTION
                row = dict(round_id=found.id, voter=voter)
                conn.execute(insert(votes).values(**row, option=answer, cast_at=self.clock()))
                if level is not None:
                    conn.execute(insert(sure).values(**row, level=level))
        except IntegrityError:
            return VoteResult.DUPLICATE
        return VoteResult.ACCEPTED

    def hide_word(self, code: str, key: str, step: int, word: str, hide: bool = True) -> None:
        """Hide `word` from `step`'s word cloud on the projector and the phones (presenter
        only; it stays counted), or show it again."""
        step, word = checks.check_step(step), checks.check_label(word, "The word")
        with self._transaction() as conn:
            room = self._presenter_room(conn, code, key)
            where = (hidden.c.room_id == room.id) & (hidden.c.step == step)
            conn.execute(delete(hidden).where(where & (hidden.c.word == word)))
            if hide:
                conn.execute(insert(hidden).values(room_id=room.id, step=step, word=word))
