"""Whether this session follows a classroom room, without importing the classroom (app.py asks
on every run; the store and its database driver load only for a session in a room)."""

from __future__ import annotations

import streamlit as st

ROOM_PARAM = "room"  # the URL's room code (attnviz.classroom.views.ROOM)
JOINED = "_classroom_joined"  # session state: the room this session follows, kept across pages


def in_a_room() -> bool:
    """The URL names a room, or this session joined one (a page opened from the sidebar drops
    the URL's settings, not the room)."""
    return ROOM_PARAM in st.query_params or JOINED in st.session_state
