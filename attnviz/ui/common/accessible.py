"""What every page needs for WCAG 2.1 AA (issue 42) beyond the pages' own markup: the app-wide
style sheet (static/app.css: caption and disabled-label contrast, wide formulas and code that
wrap on a phone, no motion when the system asks for less) and the script that gives Streamlit's
sidebar navigation readable roles and a static table's scrolling box a keyboard stop
(static/nav_semantics.js, a components-v2 component: it runs in the app's page, no iframe,
offline). tests/browser/test_accessibility.py runs axe-core on
every page to hold this."""

from __future__ import annotations

import streamlit as st

from attnviz.ui.common.sidebar import STATIC, css

NAV_SEMANTICS = st.components.v2.component(
    "attnviz_nav_semantics", js=(STATIC / "nav_semantics.js").read_text(encoding="utf-8")
)


def accessible_chrome() -> None:
    """Inject the app-wide style sheet and mount the navigation's roles (once per rerun, before
    lecture mode's and high contrast's style sheets, which may override it)."""
    st.html(css("app"))  # static CSS, never user text
    with st.sidebar:
        NAV_SEMANTICS(key="nav_semantics")
