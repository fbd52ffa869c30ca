"""The mount of a live view (issue 26): a components-v2 component that runs in the app's page (no
iframe, offline) and answers a person's moves itself. Its script is static/live_gesture.js (the
gesture's round trip, shared by every live view) followed by the view's own static/<stem>.js; its
style is static/<stem>.css."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.ui.sidebar import STATIC


def live_component(name: str, stem: str) -> Any:
    """The registered component `name` of the view in static/<stem>.js and .css."""
    gesture = (STATIC / "live_gesture.js").read_text(encoding="utf-8")
    own = (STATIC / f"{stem}.js").read_text(encoding="utf-8")
    return st.components.v2.component(
        name,
        js=f"{gesture}\n{own}",
        css=(STATIC / f"{stem}.css").read_text(encoding="utf-8"),
    )
