"""This browser's voter id for the live classroom: a uuid4 hex kept in the browser's
localStorage (static/voter_id.js, a components-v2 component), so a reload votes as the same
device and the store's one-vote-per-round holds. Until the browser's id arrives (the first
moments of a visit, or a client that runs no JavaScript such as the load test), the session's
own random id is used: the buttons never wait."""

from __future__ import annotations

import streamlit as st

from attnviz.classroom.tokens import is_voter_id, new_voter_id
from attnviz.ui.common.sidebar import STATIC

VOTER = st.components.v2.component(
    "attnviz_voter_id", js=(STATIC / "voter_id.js").read_text(encoding="utf-8")
)
SESSION_ID = "_voter_session_id"
KEY = "voter_id"


def voter_id() -> str:
    """Mount the helper (draws nothing) and return the browser's id, or the session's."""
    result = VOTER(key=KEY, on_id_change=lambda: None)
    browser = getattr(result, "id", None)
    if is_voter_id(browser):
        return browser
    return st.session_state.setdefault(SESSION_ID, new_voter_id())
