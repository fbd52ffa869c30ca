"""The mount of a live view (issue 26): a components-v2 component that runs in the app's page (no
iframe, offline) and answers a person's moves itself. Its script is static/live_gesture.js (the
gesture's round trip, shared by every live view) followed by the view's own static/<stem>.js; its
style is static/<stem>.css."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.ui.common.sidebar import STATIC


def live_component(name: str, stem: str) -> Any:
    """The registered component `name` of the view in static/<stem>.js and .css."""
    gesture = (STATIC / "live_gesture.js").read_text(encoding="utf-8")
    own = (STATIC / f"{stem}.js").read_text(encoding="utf-8")
    return st.components.v2.component(
        name,
        js=f"{gesture}\n{own}",
        css=(STATIC / f"{stem}.css").read_text(encoding="utf-8"),
    )


def sent_gesture(key: str, field: str, size: int) -> list | None:
    """The live view `key`'s last gesture, [value…, gesture id] of `size` items as the browser
    sent it under `field`; None when the message is malformed (it is then ignored)."""
    state = st.session_state.get(key) or {}
    sent = state.get(field) if hasattr(state, "get") else None
    return sent if isinstance(sent, list) and len(sent) == size else None


def mount(component: Any, key: str, synced: str, data: dict, lecture: bool, **on_change) -> None:
    """Mount `component` over `data`, with lecture mode and the id of the last gesture the page
    took in (`synced`, a session key): the view then knows which rerun answers its gesture."""
    data = {**data, "lecture": lecture, "synced": st.session_state.get(synced)}
    component(key=key, data=data, **on_change)
