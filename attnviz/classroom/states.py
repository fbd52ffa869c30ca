"""What the classroom store answers with: what became of a vote, a round's state and a room's
state as a student's device follows it. Plain data (the store and the UI share them)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class VoteResult(StrEnum):
    """What became of a vote."""

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"  # this voter already voted in this round (the first vote stands)
    CLOSED = "closed"  # no round is open (or not the one the phone showed)
    UNKNOWN_OPTION = "unknown option"  # not an option, or a typed answer that cannot be one


@dataclass(frozen=True)
class RoundState:
    """A question asked on a step: round 1 or 2, its options (none for a typed answer), open or
    closed, revealed or not, and its kind (attnviz.lessons.typed_answers: choice, words, number)."""

    step: int
    number: int
    options: tuple[str, ...]
    is_open: bool
    revealed: bool
    kind: str = "choice"


@dataclass(frozen=True)
class RoomState:
    """What a student's device follows: the lesson, the presenter's step, the open round."""

    code: str
    lesson: str
    step: int
    expires_at: float
    open_round: RoundState | None
