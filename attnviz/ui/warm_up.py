"""Warm the server once, in the background, after its first page has been drawn: load the
bundled pretrained model and import scikit-learn's projections (the pretrained page's first
visit would otherwise wait seconds for transformers' import, the weights and sklearn's import).
deploy/start.sh opens each replica's home page once, so this happens before students arrive."""

from __future__ import annotations

import threading

import streamlit as st


@st.cache_resource(show_spinner=False)
def warm_up_server() -> threading.Thread:
    """Start the warm-up once per server process (later calls return the same thread)."""
    from attnviz.topics.pretrained.analysis import preload_projections
    from attnviz.topics.pretrained.model import warm_in_background

    return warm_in_background(also=(preload_projections,))
