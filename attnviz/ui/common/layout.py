"""Page furniture: the intro paragraph, the "try this" box, lazy sections. (Presets and Reset
derive from the page's parameter table: attnviz.ui.common.widgets.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from attnviz.ui.common.settings import settings


def intro(title: str, what: str) -> None:
    """Page title and the one-paragraph "what you are looking at". In lecture mode the paragraph
    moves into an "About this page" pop-over on the title's line, so the controls and the first
    figure fit the first screen of a projector (the lecturer says it aloud)."""
    if not settings().lecture:
        st.title(title)
        st.markdown(what)
        return
    row = st.container(horizontal=True, vertical_alignment="center", key="lecture_title_row")
    row.title(title, width="content")
    with row.popover("About this page", icon=":material/info:"):
        st.markdown(what)


def try_this(experiments: list[str]) -> None:
    """A short box of experiments that teach something."""
    with st.container(border=True):
        st.markdown("**Try this**")
        st.markdown("\n".join(f"{i}. {text}" for i, text in enumerate(experiments, 1)))


def lazy_expander(label: str, key: str):
    """An expander that reruns the page when it opens or closes, so that its body can be built
    only while `.open` (`with lazy_expander(...) as box: if not box.open: return`). Whether it
    is open is kept in the URL."""
    return st.expander(label, key=key, on_change="rerun", bind="query-params")


@dataclass
class TrainingLayout:
    """Where a training page draws: `groups` (one container per settings group), `buttons`
    (Start, Pause, ...) and `stage` (a context for the live views)."""

    groups: list[Any]
    buttons: Any
    stage: Any


def training_layout(groups: list[str]) -> TrainingLayout:
    """The settings groups as tabs in a narrow left column, and the buttons and the live views
    beside them, so that Start and the main figure are in the first screen (a projector's in
    lecture mode, 1280×720 in normal mode: issue 54); on a phone the column comes first."""
    left, stage = st.columns([1, 2], gap="medium")
    return TrainingLayout(left.tabs(groups), stage.container(), stage)
