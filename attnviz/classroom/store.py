"""The classroom store: rooms, steps, rounds and votes in one database shared by every replica.

Students call `join`, `vote` and `counts`; every other operation belongs to the presenter and
checks the presenter key first (`NotPresenter` otherwise). Errors a person can meet are
`ClassroomError`s with a message to show; a database that does not answer raises
`StoreUnavailable` ("retrying…"), never the driver's exception. A vote that was committed but
whose answer was lost returns `DUPLICATE` when sent again: the UI may treat it as recorded.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from sqlalchemy import Connection, Row, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from attnviz.classroom import checks
from attnviz.classroom.config import StoreConfig
from attnviz.classroom.errors import BadInput, NoSuchRoom, NotPresenter, StoreUnavailable
from attnviz.classroom.schema import READ_ONLY, make_engine, metadata, rooms, rounds, votes
from attnviz.classroom.states import RoomState, RoundState, VoteResult
from attnviz.classroom.tokens import (
    hash_key,
    key_matches,
    new_presenter_key,
    new_room_code,
    normalize_code,
)

UNREACHABLE = (OperationalError, InterfaceError, PoolTimeout)
CODE_TRIES = 8  # a fresh code collides with a live room about once in 10**9 / rooms


def _round_state(row: Row) -> RoundState:
    options = tuple(json.loads(row.options))
    return RoundState(row.step, row.number, options, bool(row.is_open), bool(row.revealed))


def _is_shown(found: Row, step: int | None, number: int | None) -> bool:
    """Whether the open round `found` is the one the phone showed (None: any)."""
    return (step is None or found.step == step) and (number is None or found.number == number)


class Store:
    """The classroom's operations over one database (see the module docstring)."""

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
        open_round = None if open_row is None else _round_state(open_row)
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
            conn.execute(delete(votes).where(votes.c.round_id.in_(gone_rounds)))
            conn.execute(delete(rounds).where(rounds.c.room_id.in_(gone)))
            return conn.execute(delete(rooms).where(rooms.c.expires_at <= now)).rowcount

    # --- rounds --------------------------------------------------------------------------

    def open_round(
        self, code: str, key: str, step: int, options: Sequence[str], number: int = 1
    ) -> RoundState:
        """Ask a question on `step` (presenter only): round `number` (1, or 2 after the
        discussion) opens and any other open round of the room closes. Opening a round again
        reopens it with its votes, if its options are the same."""
        step, number = checks.check_step(step), checks.check_number(number)
        labels = checks.check_options(options)
        try:
            with self._transaction() as conn:
                room = self._presenter_room(conn, code, key)
                close_all = update(rounds).where(rounds.c.room_id == room.id, rounds.c.is_open)
                conn.execute(close_all.values(is_open=False))
                self._open_or_reopen(conn, room.id, step, number, labels)
        except IntegrityError:  # the same round opened from another tab at the same moment
            raise BadInput("This round was just opened elsewhere; reload the page.") from None
        return RoundState(step, number, labels, is_open=True, revealed=False)

    def _open_or_reopen(
        self, conn: Connection, room_id: int, step: int, number: int, labels: tuple[str, ...]
    ) -> None:
        existing = self._round(conn, room_id, step, number)
        if existing is None:
            row = dict(room_id=room_id, step=step, number=number, options=json.dumps(labels))
            conn.execute(insert(rounds).values(**row, opened_at=self.clock()))
            return
        if tuple(json.loads(existing.options)) != labels:
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
    ) -> VoteResult:
        """Cast `voter_id`'s vote for `option` in the room's open round. With `step`/`number`
        (the round the phone showed) a vote for a round that has since changed is `CLOSED`.
        One vote per voter per round: the table's UNIQUE constraint decides, so two devices
        racing with one id count once."""
        voter = checks.check_voter(voter_id)
        try:
            with self._transaction() as conn:
                room = self._room(conn, code)
                query = select(rounds).where(rounds.c.room_id == room.id, rounds.c.is_open)
                found = conn.execute(query).first()
                if found is None or not _is_shown(found, step, number):
                    return VoteResult.CLOSED
                if option not in json.loads(found.options):
                    return VoteResult.UNKNOWN_OPTION
                row = dict(round_id=found.id, voter=voter, option=option)
                conn.execute(insert(votes).values(**row, cast_at=self.clock()))
        except IntegrityError:
            return VoteResult.DUPLICATE
        return VoteResult.ACCEPTED

    def counts(self, code: str, step: int, number: int = 1) -> dict[str, int]:
        """Votes per option of a round, every option listed in order (zeros included); `{}` for
        a round not asked yet."""
        step, number = checks.check_step(step), checks.check_number(number)
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            found = self._round(conn, room.id, step, number)
            if found is None:
                return {}
            query = (
                select(votes.c.option, func.count())
                .where(votes.c.round_id == found.id)
                .group_by(votes.c.option)
            )
            tally = dict(conn.execute(query).tuples().all())
        return {option: int(tally.get(option, 0)) for option in json.loads(found.options)}

    def results(self, code: str, step: int) -> list[tuple[RoundState, dict[str, int]]]:
        """Every round asked on `step` (round 1 first) with its votes per option (zeros
        included): what the projector counts and, once revealed, what phones show."""
        step = checks.check_step(step)
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            query = select(rounds).where(rounds.c.room_id == room.id, rounds.c.step == step)
            asked = conn.execute(query.order_by(rounds.c.number)).all()
            tally_query = (
                select(votes.c.round_id, votes.c.option, func.count())
                .where(votes.c.round_id.in_([found.id for found in asked]))
                .group_by(votes.c.round_id, votes.c.option)
            )
            tally = {(r, o): int(n) for r, o, n in conn.execute(tally_query).tuples()}
        return [
            (
                _round_state(found),
                {o: tally.get((found.id, o), 0) for o in json.loads(found.options)},
            )
            for found in asked
        ]

    def moves(self, code: str, step: int) -> dict[tuple[str, str], int]:
        """How many voters who voted in both rounds of `step` went from each round-1 option to
        each round-2 option (staying counts as a move to the same option): the shift chart."""
        step = checks.check_step(step)
        first, second = votes.alias("first"), votes.alias("second")
        one, two = rounds.alias("one"), rounds.alias("two")
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            query = (
                select(first.c.option, second.c.option, func.count())
                .join(one, one.c.id == first.c.round_id)
                .join(second, second.c.voter == first.c.voter)
                .join(two, two.c.id == second.c.round_id)
                .where(one.c.room_id == room.id, one.c.step == step, one.c.number == 1)
                .where(two.c.room_id == room.id, two.c.step == step, two.c.number == 2)
                .group_by(first.c.option, second.c.option)
            )
            return {(a, b): int(n) for a, b, n in conn.execute(query).tuples()}

    def export_csv(self, code: str, key: str) -> str:
        """The room's results (presenter only): `step,round,option,count`, every option of every
        round in order, zeros included. No voter ids, no times."""
        with self._transaction(read_only=True) as conn:
            room = self._presenter_room(conn, code, key)
            query = select(rounds).where(rounds.c.room_id == room.id)
            asked = conn.execute(query.order_by(rounds.c.step, rounds.c.number)).all()
            tally_query = (
                select(votes.c.round_id, votes.c.option, func.count())
                .join(rounds, rounds.c.id == votes.c.round_id)
                .where(rounds.c.room_id == room.id)
                .group_by(votes.c.round_id, votes.c.option)
            )
            tally = {(r, o): int(n) for r, o, n in conn.execute(tally_query).tuples()}
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["step", "round", "option", "count"])
        for found in asked:
            for option in json.loads(found.options):
                writer.writerow(
                    [
                        found.step,
                        found.number,
                        checks.csv_text(option),
                        tally.get((found.id, option), 0),
                    ]
                )
        return out.getvalue()
