"""Warm the server once, in the background, after its first page has been drawn: load the
bundled pretrained model, import scikit-learn's projections, and import what loading the
language model needs from transformers (not that model itself: a server holds its 540 MB only
once a session opens its page). The pretrained page's first visit would otherwise wait seconds
for transformers' import, the weights and sklearn's import, and the language model's for the
Llama modules. deploy/start.sh opens each replica's home page once, so this happens before
students arrive."""

from __future__ import annotations

import contextlib
import threading
import time

import streamlit as st

THREAD_NAME = "attnviz-warm-up"
# the first page's browser fetches ~30 small scripts (its widgets' code) after the run: importing
# torch holds the GIL for ~1 s and made each of them wait; so the warm-up starts after a pause
DELAY_S = 2.5


@st.cache_resource(show_spinner=False)
def warm_up_server() -> threading.Thread:
    """Start the warm-up once per server process (later calls return the same thread). Even the
    imports happen on that thread: torch's takes ~0.9 s, which the first page must not wait for."""
    thread = threading.Thread(target=_warm, name=THREAD_NAME, daemon=True)
    thread.start()
    return thread


def _warm() -> None:
    """After DELAY_S, import the pretrained page's engine, load its model and sklearn (a
    failure is left for the page to report)."""
    time.sleep(DELAY_S)
    with contextlib.suppress(Exception):
        from attnviz.topics.language_model.scene import SCENE

        SCENE.ops.warm_up()
