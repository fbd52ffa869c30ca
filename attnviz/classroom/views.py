"""What the classroom's views decide, as plain functions (no Streamlit): the step a student's
device follows, the links of a room, which round the presenter may open next, what a vote's
outcome tells the student, and the words of a live count. The UI (attnviz/ui/classroom_*.py)
draws them; tests check them without a page."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

from attnviz.classroom.states import RoomState, RoundState, VoteResult
from attnviz.lessons.typed_answers import CHOICE, problem

ROOM, ROOM_KEY = "room", "room_key"  # the URL's parameters: the room's code, the presenter key
VOTE_LABELS = {1: "Open vote", 2: "Vote again"}


def followed_step(room_step: int, total: int) -> int:
    """The lesson step (1-based) a student's device shows for the room's step: the store's
    step clamped into the lesson (a room just opened is at step 0: the first step)."""
    if total < 1:
        raise ValueError("A lesson has at least one step.")
    return min(max(int(room_step), 1), total)


def signature(state: RoomState) -> tuple[int, int | None, int | None]:
    """What a student's page depends on: the room's step and its open round (step, number).
    A poll that sees another signature redraws the whole page."""
    found = state.open_round
    return (
        state.step,
        None if found is None else found.step,
        None if found is None else found.number,
    )


def students_room_path(code: str) -> str:
    """The students' link (a path): the home page with the room's code; the page follows the
    presenter from there. It never holds the presenter key."""
    return "/?" + urlencode({ROOM: code})


def presenter_path(page: str, slug: str, number: int, code: str, key: str) -> str:
    """The presenter's own link back into the room (a path): the step's page, the lesson at
    that step, the room and its key (the page takes the key into the session and drops it from
    the address bar)."""
    query = {"lesson": slug, "step": str(number), ROOM: code, ROOM_KEY: key}
    return f"/{page}?" + urlencode(query)


def next_round(asked: Sequence[RoundState]) -> int | None:
    """The round the presenter may open next on a step: 1 when none was asked, 2 after round
    1, None once round 2 was asked (reopening is the store's business, not the bar's)."""
    numbers = {found.number for found in asked}
    if 1 not in numbers:
        return 1
    if 2 not in numbers:
        return 2
    return None


def vote_note(result: VoteResult, option: str, kind: str = CHOICE) -> tuple[str, str]:
    """(kind, message) a student sees after tapping `option`, or sending a typed answer (a round
    of another `kind`, attnviz.lessons.typed_answers): kind is "success" (this vote, or an
    earlier one of this device, stands) or "warning"; the message is plain text."""
    said, did = ("vote", "voted") if kind == CHOICE else ("answer", "answered")
    if result is VoteResult.ACCEPTED:
        return "success", f"Your {said}: {option}"
    if result is VoteResult.DUPLICATE:
        return "success", f"You already {did} in this round: your first {said} counts."
    if result is VoteResult.CLOSED:
        return "warning", "This vote has closed; wait for the presenter's next question."
    return "warning", problem(kind)


def count_line(total: int) -> str:
    """ "1 vote", "37 votes"."""
    return f"{total} vote" if total == 1 else f"{total} votes"


def round_counts(
    results: Sequence[tuple[RoundState, dict[str, int]]],
) -> list[tuple[int, dict[str, int]]]:
    """(round number, votes per option) of each round asked, round 1 first."""
    return sorted((found.number, dict(counts)) for found, counts in results)


def is_revealed(results: Sequence[tuple[RoundState, dict[str, int]]]) -> bool:
    """Whether the presenter revealed the step's answers (any round revealed)."""
    return any(found.revealed for found, _ in results)
