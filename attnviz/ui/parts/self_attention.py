"""The self-attention page's live query-row view (issue 26): a components-v2 component
(attnviz.ui.common.live_component: static/live_gesture.js + live_attention_row.js + .css) that
computes query row i of the layer in the browser (scores, scaled, masked, softmax weights, output
row) while a row is picked by arrow keys, clicks or a pointer sweep, and sends the row back once per
gesture. This module owns its mount and the way a gesture becomes the page's query patch:
`take_live_row`, an on-change callback, writes it into the `sa_i` slider before it is drawn, so the
row-mode figures, the URL and the lesson answer follow.

The browser sends [i, gesture id]; the id comes back in the data (`synced`) so the view knows
which rerun answers its gesture and never jumps back to an older row."""

from __future__ import annotations

import math

import streamlit as st

from attnviz.topics.self_attention.scene import SCENE
from attnviz.ui.common.live_component import live_component, mount, sent_gesture

KEY = "sa_live"
SYNCED = "sa_live_synced"  # the id of the last gesture put into the slider

LIVE = live_component("attnviz_live_attention_row", "live_attention_row")


def row_value(raw: object, m: int) -> int | None:
    """`raw` as a query patch of an m-patch input (0..m−1, within the slider's range), None if
    it is not a whole number there."""
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return None
    if raw != int(raw):
        return None
    top = min(int(m), SCENE.table["sa_i"].high + 1) - 1
    return int(raw) if 0 <= raw <= top else None


def take_live_row() -> None:
    """on_row_change: the picked row becomes the `sa_i` slider's value (and is remembered as
    synced). A malformed message from the browser is ignored."""
    sent = sent_gesture(KEY, "row", 2)
    if sent is None:
        return
    row = row_value(sent[0], st.session_state.get("sa_m", SCENE.table["sa_m"].default))
    if row is None:
        return
    st.session_state["sa_i"] = row
    st.session_state[SYNCED] = sent[1]


def live_row_view(data: dict, lecture: bool = False) -> None:
    """Mount the live view over `data` (attnviz.topics.self_attention.scene.live_row_data)."""
    mount(LIVE, KEY, SYNCED, data, lecture, on_row_change=take_live_row)
