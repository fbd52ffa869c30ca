"""A tap on a clickable map picks its cell on a touch screen as a click does with a mouse
(static/cell_tap.js, a components-v2 component: it runs in the app's page, offline, no iframe;
attnviz/figures/clickable.py marks the maps)."""

from __future__ import annotations

import contextlib

import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey

from attnviz.ui.common.sidebar import STATIC

CELL_TAP = st.components.v2.component(
    "attnviz_cell_tap", js=(STATIC / "cell_tap.js").read_text(encoding="utf-8")
)


def cell_taps() -> None:
    """Mount the helper (drawing nothing) where a clickable map is shown; once a run (a second
    map in the same run finds it mounted)."""
    with contextlib.suppress(StreamlitDuplicateElementKey):
        CELL_TAP(key="cell_tap")
