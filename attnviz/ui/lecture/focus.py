"""Presenter mode's pointer: the step's figure (`figure` in the lesson file) scrolled just below
the lesson's bar and marked, on every step. The work is done in the page by
static/lesson_focus.js, a Streamlit components-v2 component (it runs in the app's page, offline,
no iframe); the figure's name reaches it as data, never as code or HTML."""

from __future__ import annotations

import streamlit as st

from attnviz.ui.common.sidebar import STATIC

FOCUS = st.components.v2.component(
    "attnviz_lesson_focus", js=(STATIC / "lesson_focus.js").read_text(encoding="utf-8")
)


def point_at_figure(figure: str, where: str) -> None:
    """Scroll to and mark the figure named `figure` (the start of its title; "" marks nothing).
    `where` names the step ("<slug>:<n>"): a new step, even with the same figure, scrolls again;
    a rerun within the step leaves the presenter's own scrolling alone."""
    FOCUS(data={"figure": figure, "step": where}, key="lesson_focus")
