"""The soft-select page's live query view (issue 26): a components-v2 component
(attnviz.ui.common.live_component: static/live_gesture.js + live_select.js + .css) that recomputes
the weights and the soft output in the browser while the query is dragged or moved by arrow keys,
and sends the query back once per gesture. This module owns its mount and the way a gesture becomes
the page's query: `take_live_query`, an on-change callback, writes it into the ss_q1/ss_q2 sliders
before they are drawn, so the figures, metrics, table, URL and lesson answers follow.

The browser sends [q1, q2, gesture id]; the id comes back in the data (`synced`) so the view
knows which rerun answers its gesture and never jumps back to an older query."""

from __future__ import annotations

import math

import streamlit as st

from attnviz.topics.soft_select.scene import SCENE
from attnviz.ui.common.live_component import live_component, mount, sent_gesture

KEY = "ss_live"
SYNCED = "ss_live_synced"  # the id of the last gesture put into the sliders

LIVE = live_component("attnviz_live_select", "live_select")


def _slider_value(key: str, raw: object) -> float | None:
    """`raw` as a value of slider `key` (rounded to its step, within its range), None if it is
    not a finite number."""
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return None
    param = SCENE.table[key]
    steps = round((min(param.high, max(param.low, float(raw))) - param.low) / param.step)
    return round(param.low + steps * param.step, 6)


def take_live_query() -> None:
    """on_query_change: the dragged query becomes the sliders' value (and is remembered as
    synced). A malformed message from the browser is ignored."""
    sent = sent_gesture(KEY, "query", 3)
    if sent is None:
        return
    q1, q2 = _slider_value("ss_q1", sent[0]), _slider_value("ss_q2", sent[1])
    if q1 is None or q2 is None:
        return
    st.session_state["ss_q1"], st.session_state["ss_q2"] = q1, q2
    st.session_state[SYNCED] = sent[2]


def live_query_view(data: dict, lecture: bool = False) -> None:
    """Mount the live view over `data` (attnviz.topics.soft_select.scene.live_data)."""
    mount(LIVE, KEY, SYNCED, data, lecture, on_query_change=take_live_query)
