"""The shared sidebar: device, global seed, lecture mode and figure export format."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attnviz.training.devices import available_devices

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
        device = st.selectbox(
            "Device",
            available_devices(),
            key="device",
            bind="query-params",
            help="Where models train. CUDA and MPS appear only when this machine has them.",
        )
        seed = st.number_input(
            "Global seed",
            0,
            10_000,
            0,
            key="seed",
            bind="query-params",
            help="Seeds every random weight and data set, so a shared link shows the same numbers.",
        )
        lecture = st.toggle(
            "Lecture mode",
            key="lecture",
            bind="query-params",
            help="Large fonts and figures, no chrome: for a projector.",
        )
        export_format = st.radio(
            "Figure download format",
            ["png", "svg"],
            key="export",
            bind="query-params",
            horizontal=True,
            help="The camera button in each figure's toolbar saves in this format.",
        )
    if lecture:
        st.markdown(LECTURE_CSS, unsafe_allow_html=True)  # static CSS, never user text
    return GlobalSettings(device, int(seed), bool(lecture), export_format)


def settings() -> GlobalSettings:
    """The global settings drawn by app.py on this rerun."""
    found = st.session_state.get("_global_settings")
    return found if found is not None else GlobalSettings("cpu", 0, False, "png")
