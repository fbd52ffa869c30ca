"""The browser's navigation on every page (static/navigation.js, a components-v2 component: it
runs in the app's page, offline, no iframe): Back goes to the previous page in one press (the
app's writes of the address replace the page's history entry instead of adding one), and on
phones the sidebar folds itself once a page is picked in it (it covers a narrow screen)."""

from __future__ import annotations

import streamlit as st

from attnviz.ui.common.sidebar import STATIC

NAVIGATION = st.components.v2.component(
    "attnviz_navigation", js=(STATIC / "navigation.js").read_text(encoding="utf-8")
)


def mend_navigation() -> None:
    """Mount the helper (drawing nothing: app.css hides its empty box in the sidebar)."""
    with st.sidebar:
        NAVIGATION(key="navigation")
