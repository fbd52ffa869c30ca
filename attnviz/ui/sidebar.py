"""The shared sidebar: device, global seed, lecture mode and figure export format."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attnviz.training.devices import available_devices
from attnviz.ui.params.sidebar import TABLE
from attnviz.ui.params.widgets import draw

LECTURE_CSS = """
<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 22px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.25rem; }
[data-testid="stHeader"], [data-testid="stToolbar"], footer { display: none; }
h1 { font-size: 3rem !important; }
</style>
"""


@dataclass
class GlobalSettings:
    device: str
    seed: int
    lecture: bool
    export_format: str

    @property
    def font_scale(self) -> float:
        return 1.6 if self.lecture else 1.0


def draw_sidebar() -> GlobalSettings:
    """Draw the global controls (bound to the URL) and return their values."""
    with st.sidebar:
        st.subheader("Settings for every page")
        device = draw(TABLE, "device", choices=available_devices())
        seed = draw(TABLE, "seed")
        lecture = draw(TABLE, "lecture")
        export_format = draw(TABLE, "export")
    if lecture:
        st.markdown(LECTURE_CSS, unsafe_allow_html=True)  # static CSS, never user text
    return GlobalSettings(device, int(seed), bool(lecture), export_format)


def settings() -> GlobalSettings:
    """The global settings drawn by app.py on this rerun."""
    found = st.session_state.get("_global_settings")
    return found if found is not None else GlobalSettings("cpu", 0, False, "png")
