"""Render Plotly figures with lecture-mode fonts and a PNG/SVG download button in the toolbar."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from attnviz.figures.base import export_config, scale_fonts
from attnviz.ui.sidebar import settings


def show(fig: go.Figure, name: str, **kwargs):
    """st.plotly_chart with the global export format and font scale; `name` is the file name."""
    glob = settings()
    if glob.font_scale != 1.0:
        fig = go.Figure(fig)  # a copy: a cached figure may be shared between sessions
        scale_fonts(fig, glob.font_scale)
        if fig.layout.height:
            fig.update_layout(height=int(fig.layout.height * 1.3))
    return st.plotly_chart(fig, config=export_config(glob.export_format, name), **kwargs)
