"""On phones the sidebar folds itself once a page is picked in it (static/phone_nav.js, a
components-v2 component: it runs in the app's page, offline, no iframe): Streamlit's sidebar
covers a narrow screen and stayed open over the page just opened."""

from __future__ import annotations

import streamlit as st

from attnviz.ui.common.sidebar import STATIC

PHONE_NAV = st.components.v2.component(
    "attnviz_phone_nav", js=(STATIC / "phone_nav.js").read_text(encoding="utf-8")
)


def fold_sidebar_after_navigation() -> None:
    """Mount the helper (drawing nothing)."""
    PHONE_NAV(key="phone_nav")
