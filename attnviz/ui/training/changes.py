"""What a training page says changed since its run: the settings in the page's words ("K (rows
of θ) (was 2, now 4)", attnviz.topics.changes), never an internal field name. Start remembers
the page's settings (its widgets' values, the global seed and device) for the run's slot; the
panel's warning compares them with the settings now."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.topics.changes import SOME_SETTINGS, changed_settings
from attnviz.topics.scene import Scene
from attnviz.ui.common.settings import settings


def page_values(scene: Scene) -> dict[str, Any]:
    """The settings of the page of `scene`, now, by parameter key."""
    found = {k: st.session_state[k] for k in scene.table.keys if k in st.session_state}
    return found | {"seed": settings().seed, "device": settings().device}


def remember(slot: str, scene: Scene) -> None:
    """Keep the page's settings as the run in `slot` starts."""
    st.session_state[f"_{slot}_values"] = page_values(scene)


def describe_changes(slot: str, scene: Scene) -> str:
    """The settings changed since the run in `slot` started, by the labels the page shows."""
    before = st.session_state.get(f"_{slot}_values")
    if before is None:
        return SOME_SETTINGS
    return ", ".join(changed_settings(scene, before, page_values(scene)))
