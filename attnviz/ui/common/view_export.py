"""Every page's "Download this view as HTML" button and "Copy as Python" code, drawn in one place:
app.py calls `offer()` once after the page has run. `scene_run` (attnviz.ui.common.scene_cache)
records the scene, values and result the page ran; the record is read and cleared here, so a page
that ran no scene this rerun (an error, the home page) shows neither.

The box is built only while it is open (its code block cost every page load ~0.5 s of a
browser's time to highlight, folded or not), and the HTML only when the button is pressed (a
callable `data`): a slider move pays nothing for either. It holds the page's views for its
values (a training page: its untrained model, said in the file), the head view on the text and
pretrained pages, plotly.js once. The file and the code are those the Python API's SceneView
writes (both from attnviz.topics.scene_export).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.topics.registry import Page
from attnviz.topics.scene import Scene, Values
from attnviz.topics.scene_export import changed, python_code, scene_html

RECORD = "_view_export_record"


def record(page: Scene, values: Values, result: Any) -> None:
    """Remember the scene this rerun ran (the page's `values` dict itself: settings a page
    writes into it after the run, such as the head or query slider, are in the export too)."""
    st.session_state[RECORD] = (page, values, result)


def _build(page: Scene, values: Values, result: Any) -> bytes:
    views = page.views(result, dict(values))
    return scene_html(page, dict(values), result, views, f"AttnViz: {page.url}").encode("utf-8")


def offer(here: Page) -> None:
    """The download button and the Python code of the scene the page `here` ran this
    rerun (a record left by another page, one that stopped early, is dropped)."""
    recorded = st.session_state.pop(RECORD, None)
    if recorded is None or recorded[0].url != here.url:
        return
    page, values, result = recorded
    with st.expander(
        "Download this view, or copy it as Python",
        icon=":material/code:",
        key="view_export",
        on_change="rerun",
    ) as box:
        if not box.open:
            return
        st.download_button(
            "Download this view as HTML",
            lambda: _build(page, values, result),
            f"attnviz-{page.url}.html",
            "text/html",
            key="view_export_html",
            on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
            help="One file with every figure of this page (interactive, offline: plotly.js is "
            "inside, ~5 MB) and the settings as a caption.",
        )
        st.caption("Copy as Python: this code draws the same figures in a notebook.")
        st.code(python_code(page.url, changed(page, values)), language="python")
