"""Scenes run under Streamlit's cache: a page asks `scene_run(scene, values)` for its result, and
the same config from any session (a hall of students on one preset) is computed once; the last run
is recorded for the page's HTML download and Python code (attnviz.ui.common.view_export)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.topics.registry import scene
from attnviz.topics.scene import Scene, Values
from attnviz.ui.common import view_export


@st.cache_data(max_entries=64, show_spinner=False)
def _run(url: str, config: Any) -> Any:
    return scene(url).run(config)


@st.cache_resource(max_entries=8, show_spinner=False)
def _run_large(url: str, config: Any) -> Any:
    """Kept as is, not pickled: a 512-token pretrained result is ~87 MB, ~30 ms to pickle on a
    miss and again to unpickle on every rerun; the views only read it."""
    return scene(url).run(config)


def scene_run(page: Scene, values: Values) -> Any:
    """`page.run(page.config(values))`, cached by the config (SceneInputError passes through);
    a scene with large results keeps its 8 latest, shared unpickled (read-only), others 64."""
    result = warm_run(page, values)
    view_export.record(page, values, result)  # the page's download and Python code
    return result


def warm_run(page: Scene, values: Values) -> Any:
    """`scene_run` without a session (the server's warm-up thread): the result put in the same
    cache a page's first visit reads, nothing recorded for a download."""
    run = _run_large if page.large_results else _run
    return run(page.url, page.config(values))
