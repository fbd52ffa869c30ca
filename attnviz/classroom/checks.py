"""Checks of what a presenter or a student hands the store (steps, round numbers, options,
lesson names), each failing with a `BadInput` whose message a person can act on."""

from __future__ import annotations

from collections.abc import Sequence

from attnviz.classroom.errors import BadInput
from attnviz.classroom.tokens import is_voter_id
from attnviz.lessons.typed_answers import sure_level

MAX_STEP = 10_000
MAX_OPTIONS = 64  # a predict-the-attention question offers every token of a sentence
MAX_LABEL = 200


def check_step(step: object) -> int:
    """A lesson step: an int from 0 to MAX_STEP (bools refused)."""
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= MAX_STEP:
        raise BadInput(f"A step is a whole number from 0 to {MAX_STEP}.")
    return step


def check_number(number: object) -> int:
    """A round number: 1 (vote alone) or 2 (vote again after discussing)."""
    if isinstance(number, bool) or number not in (1, 2):
        raise BadInput("A round is 1 (vote alone) or 2 (vote again after discussing).")
    return int(number)  # type: ignore[call-overload]


def check_label(text: object, what: str) -> str:
    """A non-empty label of at most MAX_LABEL characters, stripped, that both databases can
    store: UTF-8 text (a lone surrogate such as U+D800 is not; SQLite's driver raised a raw
    UnicodeEncodeError) without NUL (PostgreSQL refuses it in text)."""
    if not isinstance(text, str) or not text.strip() or len(text.strip()) > MAX_LABEL:
        raise BadInput(f"{what} must be text of 1 to {MAX_LABEL} characters.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"{what} holds a character that is not text (a lone surrogate).") from None
    if "\x00" in text:
        raise BadInput(f"{what} holds a NUL character.")
    return text.strip()


def check_options(options: Sequence[str]) -> tuple[str, ...]:
    """2 to MAX_OPTIONS distinct labels, in the order given."""
    if isinstance(options, str | bytes) or not isinstance(options, Sequence):
        raise BadInput("A question's options are a list of labels.")
    labels = tuple(check_label(option, "Each option") for option in options)
    if not 2 <= len(labels) <= MAX_OPTIONS:
        raise BadInput(f"A question has 2 to {MAX_OPTIONS} options (got {len(labels)}).")
    if len(set(labels)) != len(labels):
        raise BadInput("A question's options must differ from each other.")
    return labels


def check_voter(voter_id: object) -> str:
    """A voter id as the browser made it (32 lower-case hex digits), nothing else."""
    if not is_voter_id(voter_id):
        raise BadInput("This device's voter id is not valid; reload the page to get a new one.")
    return voter_id  # type: ignore[return-value]


def check_sure(level: object) -> int | None:
    """How sure a voter is: 1 to 5, or None (not said)."""
    try:
        return sure_level(level)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet runs as a formula


def csv_text(cell: str) -> str:
    """A CSV cell a spreadsheet shows as text: one that starts like a formula gets a leading
    apostrophe (OWASP's advice against CSV injection)."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell
