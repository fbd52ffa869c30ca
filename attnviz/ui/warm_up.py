"""Warm the server once, in the background, after its first page has been drawn: load the
bundled pretrained model, import scikit-learn's projections and what loading the language model
needs from transformers; then load the language model (SmolLM2, ~540 MB) and compute what the
real-model pages show first on their defaults ("Inside a language model", "Finding the heads that
answer": the result, the residual sweep, the unfolded views), into the caches their first visit
reads, so that a newcomer's first visit waits for none of it.

`ATTNVIZ_WARM_UP` chooses how much: `all` (the default), `light` (no language model: a server on
a small machine holds its 540 MB only once a session opens its page) or `off`. deploy/start.sh
opens each replica's home page once, so this happens before students arrive."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Mapping

import streamlit as st

THREAD_NAME = "attnviz-warm-up"
# the first page's browser fetches ~30 small scripts (its widgets' code) after the run: importing
# torch holds the GIL for ~1 s and made each of them wait; so the warm-up starts after a pause
DELAY_S = 2.5
MODE_ENV = "ATTNVIZ_WARM_UP"
MODES = ("all", "light", "off")


def mode(environ: Mapping[str, str] | None = None) -> str:
    """The warm-up asked for in `ATTNVIZ_WARM_UP` (an unknown word reads as the default)."""
    asked = (os.environ if environ is None else environ).get(MODE_ENV, "all").strip().lower()
    return asked if asked in MODES else "all"


@st.cache_resource(show_spinner=False)
def warm_up_server() -> threading.Thread:
    """Start the warm-up once per server process (later calls return the same thread). Even the
    imports happen on that thread: torch's takes ~0.9 s, which the first page must not wait for."""
    thread = threading.Thread(target=_warm, name=THREAD_NAME, daemon=True)
    thread.start()
    return thread


def _warm() -> None:
    """After DELAY_S, the pretrained page's engine, then the real-model pages' defaults (a
    failure is left for the page to report)."""
    if mode() == "off":
        return
    time.sleep(DELAY_S)
    with contextlib.suppress(Exception):
        from attnviz.topics.language_model.scene import SCENE

        SCENE.ops.warm_up()
    if mode() == "all":
        with contextlib.suppress(Exception):
            warm_real_model_pages()


def warm_real_model_pages() -> None:
    """Load the language model and compute each real-model page's default result, the sweep the
    interventions page draws unfolded, and the views each draws unasked, through the caches the
    pages read (attnviz.ui.common.scene_cache and the pages' `views`, view_cache); and the vision
    page's real ViT on its default photo."""
    from attnviz.topics import views as declaration
    from attnviz.topics.interventions.scene import SCENE as PATCHING
    from attnviz.topics.language_model.scene import SCENE as LLM
    from attnviz.topics.language_model.scene import model
    from attnviz.ui.common.scene_cache import warm_run
    from attnviz.ui.parts import interventions, language_model, vision_patches_real

    device = LLM.values()["device"]  # both pages run the one language model
    LLM.ops.load(device)
    for page, views in ((LLM, language_model.views), (PATCHING, interventions.views)):
        values = page.values()
        out = warm_run(page, values)
        if page is PATCHING:  # the residual sweep and its agreement (engine memos)
            PATCHING.ops.correlate(model(device), out.pair)
        unasked = {view.name for view in page.declared if declaration.asked(view, values, None)}
        views(out, values, unasked)
    vision_patches_real.warm()  # the vision page's real ViT (DINOv2), its default photo
