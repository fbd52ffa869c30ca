"""Space on a training page just opened: the page takes the keyboard focus when nothing has it,
and a same-origin page that frames the app hands Space on to it (static/keyboard_focus.js, a
components-v2 component: it runs in the app's page, offline, no iframe). Keys typed into a text
field are never taken."""

from __future__ import annotations

import streamlit as st

from attnviz.ui.common.sidebar import STATIC

KEYBOARD = st.components.v2.component(
    "attnviz_keyboard_focus", js=(STATIC / "keyboard_focus.js").read_text(encoding="utf-8")
)


def keyboard_focus() -> None:
    """Mount the helper (once per training page; drawing nothing)."""
    KEYBOARD(key="keyboard_focus")
