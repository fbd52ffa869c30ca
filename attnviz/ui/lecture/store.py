"""The live classroom's store for the UI: one `Store` per server process (cache_resource, keyed
by ATTNVIZ_DATABASE_URL so that tests pointing it at a temp file get their own), and `attempt`,
which runs one store operation and turns its errors into messages for a person (never a
traceback, never a server path)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from attnviz.classroom import ClassroomError, Store, StoreConfigError, StoreUnavailable
from attnviz.classroom.config import URL_VARIABLE

T = TypeVar("T")
RETRYING = "The classroom database is not answering; retrying…"
BROKEN = "The classroom database cannot be used here; ask whoever runs the app to check its URL."


@st.cache_resource(show_spinner=False, max_entries=4)
def _store(url: str) -> Store:
    return Store.from_env()


def store() -> Store:
    """The process's store (made on first use; StoreUnavailable when the database is down)."""
    return _store(os.environ.get(URL_VARIABLE, "").strip())


def attempt(action: Callable[[Store], T], place=None) -> tuple[T | None, ClassroomError | None]:
    """(result, None), or (None, the error) with its message shown in `place` (the main area
    by default; None shows nothing when `place` is False)."""
    try:
        return action(store()), None
    except ClassroomError as error:
        if place is not False:
            show(error, place)
        return None, error


def show(error: ClassroomError, place=None) -> None:
    """The error's message as plain text (an st.warning: Markdown, never HTML)."""
    target = st if place is None else place
    if isinstance(error, StoreUnavailable):
        target.warning(RETRYING, icon=":material/sync:")
    elif isinstance(error, StoreConfigError):
        target.error(BROKEN)
    else:
        target.warning(str(error))
