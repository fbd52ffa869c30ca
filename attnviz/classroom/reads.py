"""What the classroom store reads back for the projector and the phones: a round's votes per
answer, every round of a step, who moved between rounds, each voter's ballots with how sure they
were, the words a presenter hid, and the presenter's CSV export. A mixin of `Store`
(attnviz.classroom.store), which owns the connection and the writes.

A round's answers are its options in order (zeros included) for a `CHOICE` round, and every
answer typed, most frequent first, for a typed round (`WORDS`, `NUMBER`).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

from sqlalchemy import Connection, Row, func, select

from attnviz.classroom import checks
from attnviz.classroom.schema import hidden, rounds, sure, votes
from attnviz.classroom.states import RoundState
from attnviz.lessons.typed_answers import CHOICE


@dataclass(frozen=True)
class Ballot:
    """One voter's answer in one round of a step, and how sure they said they were (None: not
    said). `voter` numbers the step's voters 0, 1, … (the same person in both rounds)."""

    number: int
    voter: int
    answer: str
    sure: int | None


def options_json(kind: str, labels: tuple[str, ...]) -> str:
    """The rounds table's `options` text: the labels, or the kind of a typed round."""
    return json.dumps(list(labels) if kind == CHOICE else {"kind": kind})


def round_state(row: Row) -> RoundState:
    """The round a `rounds` row holds."""
    stored = json.loads(row.options)
    kind = CHOICE if isinstance(stored, list) else str(stored["kind"])
    options = tuple(stored) if kind == CHOICE else ()
    return RoundState(row.step, row.number, options, bool(row.is_open), bool(row.revealed), kind)


def in_order(found: RoundState, tally: dict[str, int]) -> dict[str, int]:
    """A round's votes per answer: its options in order with zeros, or (typed) every answer
    given, the most frequent first (ties in the order of the text)."""
    if found.kind == CHOICE:
        return {option: int(tally.get(option, 0)) for option in found.options}
    return dict(sorted(tally.items(), key=lambda item: (-item[1], item[0])))


class Reads:
    """The store's reads (see the module docstring); `Store` supplies `_transaction`, `_room`,
    `_round` and `_presenter_room`."""

    def _tallies(self, conn: Connection, round_ids: list[int]) -> dict[tuple[int, str], int]:
        query = (
            select(votes.c.round_id, votes.c.option, func.count())
            .where(votes.c.round_id.in_(round_ids))
            .group_by(votes.c.round_id, votes.c.option)
        )
        return {(r, o): int(n) for r, o, n in conn.execute(query).tuples()}

    def _asked(self, conn: Connection, room_id: int, step: int | None) -> list[Row]:
        query = select(rounds).where(rounds.c.room_id == room_id)
        if step is not None:
            query = query.where(rounds.c.step == step)
        return conn.execute(query.order_by(rounds.c.step, rounds.c.number)).all()

    def counts(self, code: str, step: int, number: int = 1) -> dict[str, int]:
        """Votes per answer of a round (`in_order`); `{}` for a round not asked yet."""
        step, number = checks.check_step(step), checks.check_number(number)
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            found = self._round(conn, room.id, step, number)
            if found is None:
                return {}
            tally = {o: n for (_, o), n in self._tallies(conn, [found.id]).items()}
        return in_order(round_state(found), tally)

    def results(self, code: str, step: int) -> list[tuple[RoundState, dict[str, int]]]:
        """Every round asked on `step` (round 1 first) with its votes per answer (`in_order`):
        what the projector counts and, once revealed, what phones show."""
        step = checks.check_step(step)
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            asked = self._asked(conn, room.id, step)
            tally = self._tallies(conn, [found.id for found in asked])
        found_rounds = [(found.id, round_state(found)) for found in asked]
        return [
            (state, in_order(state, {o: n for (r, o), n in tally.items() if r == rid}))
            for rid, state in found_rounds
        ]

    def moves(self, code: str, step: int) -> dict[tuple[str, str], int]:
        """How many voters who voted in both rounds of `step` went from each round-1 answer to
        each round-2 answer (staying counts as a move to the same answer): the shift chart."""
        moved: dict[tuple[str, str], int] = {}
        cast = self.ballots(code, step)
        first = {b.voter: b.answer for b in cast if b.number == 1}
        for ballot in cast:
            if ballot.number == 2 and ballot.voter in first:
                pair = (first[ballot.voter], ballot.answer)
                moved[pair] = moved.get(pair, 0) + 1
        return moved

    def ballots(self, code: str, step: int) -> list[Ballot]:
        """Every vote of `step`'s rounds with its confidence, voters numbered in the order of
        their first vote (no voter id leaves the store)."""
        step = checks.check_step(step)
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            query = (
                select(rounds.c.number, votes.c.voter, votes.c.option, sure.c.level)
                .join(rounds, rounds.c.id == votes.c.round_id)
                .outerjoin(
                    sure, (sure.c.round_id == votes.c.round_id) & (sure.c.voter == votes.c.voter)
                )
                .where(rounds.c.room_id == room.id, rounds.c.step == step)
                .order_by(votes.c.cast_at, votes.c.id)
            )
            rows = conn.execute(query).tuples().all()
        ordinal: dict[str, int] = {}
        return [
            Ballot(number, ordinal.setdefault(voter, len(ordinal)), option, level)
            for number, voter, option, level in rows
        ]

    def hidden_words(self, code: str, step: int) -> tuple[str, ...]:
        """The words the presenter hid from `step`'s word cloud, in the order hidden."""
        step = checks.check_step(step)
        with self._transaction(read_only=True) as conn:
            room = self._room(conn, code)
            query = select(hidden.c.word).where(hidden.c.room_id == room.id, hidden.c.step == step)
            return tuple(conn.execute(query.order_by(hidden.c.id)).scalars())

    def export_csv(self, code: str, key: str) -> str:
        """The room's results (presenter only): `step,round,kind,answer,count`, every answer of
        every round (`in_order`, zeros included). No voter ids, no times; a typed answer that
        starts like a formula gets a leading apostrophe (`checks.csv_text`)."""
        with self._transaction(read_only=True) as conn:
            room = self._presenter_room(conn, code, key)
            asked = self._asked(conn, room.id, None)
            tally = self._tallies(conn, [found.id for found in asked])
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["step", "round", "kind", "answer", "count"])
        for found in asked:
            state = round_state(found)
            own = {o: n for (r, o), n in tally.items() if r == found.id}
            for answer, count in in_order(state, own).items():
                row = [state.step, state.number, state.kind, checks.csv_text(answer), count]
                writer.writerow(row)
        return out.getvalue()
