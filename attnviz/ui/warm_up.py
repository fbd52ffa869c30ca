"""Warm the server once, in the background, after its first page has been drawn: load the
bundled pretrained model (its first visit would otherwise wait seconds for transformers'
import and the weights)."""

from __future__ import annotations

import threading

import streamlit as st


@st.cache_resource(show_spinner=False)
def warm_up_server() -> threading.Thread:
    """Start the warm-up once per server process (later calls return the same thread)."""
    from attnviz.topics.pretrained.model import warm_in_background

    return warm_in_background()
