"""The app's error boundary: a page that fails shows a short, plain message with what to do
next, and the traceback goes to the server's log, never to the browser (no path, no code, no
search link). `.streamlit/config.toml` sets `client.showErrorDetails = "none"` for anything
outside it. Tests set ATTNVIZ_RAISE_ERRORS=1 so that a failure is a failure, not a message."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:
    from attnviz.topics.registry import Page

LOG = logging.getLogger("attnviz")
RAISE_VARIABLE = "ATTNVIZ_RAISE_ERRORS"
MESSAGE = (
    "Something on this page went wrong with these settings. Try **Reset page**, or go back to "
    "the setting you changed last; the other pages keep working. (The details are in the "
    "server's log.)"
)


@contextmanager
def error_boundary(page: Page) -> Iterator[None]:
    """Run a page; an exception becomes MESSAGE (st.stop and reruns pass through: they are not
    Exceptions)."""
    try:
        yield
    except Exception:
        if os.environ.get(RAISE_VARIABLE) == "1":
            raise
        LOG.exception("page %s failed", page.url)
        with st.container(key="error_boundary"):
            st.error(MESSAGE, icon=":material/error:")
