"""What a training page says changed since its run: the settings in the page's words ("K (rows
of θ) (was 2, now 4)", attnviz.topics.changes), never an internal field name. Start remembers
the page's settings (its widgets' values, the global seed and device) for the run's slot; the
panel's warning compares them with the settings now."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.topics.changes import SOME_SETTINGS, changed_settings, scene_of_prefix
from attnviz.ui.settings import settings


def page_values(key: str) -> dict[str, Any]:
    """The settings of the page whose table has prefix `key`, now, by parameter key."""
    scene = scene_of_prefix(key)
    keys = scene.table.keys if scene is not None else []
    found = {k: st.session_state[k] for k in keys if k in st.session_state}
    return found | {"seed": settings().seed, "device": settings().device}


def remember(slot: str, key: str) -> None:
    """Keep the page's settings as the run in `slot` starts."""
    st.session_state[f"_{slot}_values"] = page_values(key)


def describe_changes(slot: str, key: str) -> str:
    """The settings changed since the run in `slot` started, by the labels the page shows."""
    scene = scene_of_prefix(key)
    before = st.session_state.get(f"_{slot}_values")
    if scene is None or before is None:
        return SOME_SETTINGS
    return ", ".join(changed_settings(scene, before, page_values(key)))
