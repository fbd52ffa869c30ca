"""Scenes run under Streamlit's cache: a page asks `scene_run(scene, values)` for its result,
and the same config from any session (a hall of students on one preset) is computed once."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.topics.registry import scene
from attnviz.topics.scene import Scene, Values


@st.cache_data(max_entries=64, show_spinner=False)
def _run(url: str, config: Any) -> Any:
    return scene(url).run(config)


def scene_run(page: Scene, values: Values) -> Any:
    """`page.run(page.config(values))`, cached by the config (SceneInputError passes through)."""
    return _run(page.url, page.config(values))
