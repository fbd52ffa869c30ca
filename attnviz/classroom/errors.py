"""The classroom's errors: each carries a message written for a person (the UI shows `str(error)`
as plain text), never a traceback or a database's own words."""

from __future__ import annotations


class ClassroomError(Exception):
    """Base of every error the classroom store raises on purpose; `str()` is the message to show."""


class NoSuchRoom(ClassroomError):
    """The room code names no open room (never opened, mistyped, or expired)."""

    def __init__(self, code: str = "") -> None:
        shown = f" {code}" if code else ""
        super().__init__(
            f"There is no open room{shown}. Check the code on the projector: rooms close "
            "when the lecture's time is up."
        )


class NotPresenter(ClassroomError):
    """The presenter key is missing or wrong: only the presenter's link may steer the room."""

    def __init__(self) -> None:
        super().__init__(
            "Only the presenter can do this: open the room from the presenter's link "
            "(the students' link cannot steer the room)."
        )


class StoreUnavailable(ClassroomError):
    """The database did not answer (down, restarting, locked for too long): try again shortly."""

    def __init__(self) -> None:
        super().__init__("The classroom database is not reachable right now; retrying…")


class BadInput(ClassroomError):
    """An argument the store refuses (a malformed voter id, an empty option list, ...)."""


class StoreConfigError(ClassroomError):
    """The database URL cannot be used (unknown scheme, driver not installed)."""
