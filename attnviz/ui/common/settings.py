"""This rerun's global settings (device, seed, lecture mode, contrast, figure format), as the
sidebar drew them. Widgets, figures and layout read them here; the sidebar writes them. Kept
apart from the sidebar so that the widgets the sidebar draws do not import it back."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

KEY = "_global_settings"


@dataclass
class GlobalSettings:
    device: str
    seed: int
    lecture: bool
    export_format: str
    high_contrast: bool = False
    tables: bool = False  # every figure's summary line and data table under it

    @property
    def font_scale(self) -> float:
        return 1.6 if self.lecture else 1.0


def settings() -> GlobalSettings:
    """The global settings drawn by app.py on this rerun."""
    found = st.session_state.get(KEY)
    return found if found is not None else GlobalSettings("cpu", 0, False, "png")


def remember(glob: GlobalSettings) -> None:
    """Keep this rerun's settings for every part of the page (app.py, after the sidebar)."""
    st.session_state[KEY] = glob
