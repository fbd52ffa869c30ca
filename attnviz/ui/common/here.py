"""The page this rerun draws, known once per run: app.py names it (`enter`) from its
navigation before anything is drawn, and the furniture asks for it (`page`, `scene`) instead of
reading Streamlit's private page manager or passing url strings around."""

from __future__ import annotations

import streamlit as st

from attnviz.topics.registry import HOME, Page
from attnviz.topics.scene import Scene

KEY = "_here"  # session state: the Page this session's current run draws


def enter(page: Page) -> Page:
    """Name the page this run draws (app.py, once per run); returns it."""
    st.session_state[KEY] = page
    return page


def page() -> Page:
    """The page this run draws (home before app.py has named one)."""
    return st.session_state.get(KEY, HOME)


def scene() -> Scene | None:
    """The scene of the page this run draws (None on a page without one)."""
    return page().scene
