"""Page furniture: the intro paragraph, the "try this" box, lazy sections. (Presets and Reset
derive from the page's parameter table: attnviz.ui.common.widgets.)"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from attnviz.topics.views import TRAINING_STAGE
from attnviz.ui.common import here
from attnviz.ui.common.settings import settings

TITLE_ROW = "_title_row"  # session key of this rerun's title row
TITLE_ROOM = 34  # characters of a title that leave room on its line for Reset in lecture mode
# at 1280 px, clear of "Exit lecture mode" (38, "…learned kernel smoother", fit in some runs)


def intro(title: str, what: str) -> None:
    """Page title and the one-paragraph "what you are looking at", in an "About" pop-over on the
    title's line, so that the controls and the first figure fit the first screen (a projector's
    in lecture mode, where the lecturer says it aloud; 1280×720 in normal mode, issue 54: named
    "About this page", it wrapped to a line of its own under a long title). Outside lecture mode
    the paragraph's first sentence stays under the title. In lecture mode the page's Reset joins
    the title's line where it fits: the presets' row wrapped it to a line of its own at
    1280×720, 66 px above the page's main view."""
    row = st.container(horizontal=True, vertical_alignment="center", key="lecture_title_row")
    row.title(title, width="content")
    with row.popover("About", icon=":material/info:", help="What this page shows, in a paragraph"):
        st.markdown(what)
    fits = len(title) <= TITLE_ROOM  # lecture mode's Reset joins it (widgets.reset_button)
    st.session_state[TITLE_ROW] = row if fits else None  # (never an earlier page's row)
    if not settings().lecture and not here.staged():  # (a stage's step says it instead)
        st.markdown(lead(what))


def lead(what: str) -> str:
    """The paragraph's first sentence (a full stop followed by a space, outside $…$ math and
    brackets), or the whole paragraph when it is one sentence; a sentence longer than LONG_LEAD
    ends at its first colon or semicolon instead."""
    first = _cut(what, ".!?")
    if len(first) > LONG_LEAD:
        shorter = _cut(first, ":;")
        if len(shorter) < len(first):
            return shorter[:-1] + "."
    return first


def _cut(text: str, stops: str) -> str:
    """`text` up to and including the first of `stops` that is followed by a space, outside
    math and brackets, at least MIN_LEAD characters in."""
    in_math, depth = False, 0
    for i, char in enumerate(text):
        in_math ^= char == "$"
        depth += (char == "(") - (char == ")")
        ends = char in stops and text[i + 1 : i + 2] == " "
        if ends and not in_math and depth == 0 and i >= MIN_LEAD:
            return text[: i + 1]
    return text


MIN_LEAD = 30  # characters: a full stop before this ends an abbreviation, not the lead
LONG_LEAD = 200  # characters: about two lines beside the sidebar at 1280 px


def try_this(experiments: list[str]) -> None:
    """A short box of experiments that teach something."""
    with st.container(border=True):
        st.markdown("**Try this**")
        st.markdown("\n".join(f"{i}. {text}" for i, text in enumerate(experiments, 1)))


def view_first_on_a_laptop() -> Callable[[], Any]:
    """A place for a page's main view, for the settings the page draws next: opened here outside
    lecture mode (the view above them, whole in a laptop's first screen), and where the returned
    function is called in lecture mode (under them: the settings first, the projector's first
    controls). `place = view_first_on_a_laptop()`, the settings, then `with place(): ...`, once."""
    early = None if settings().lecture else st.container()
    return lambda: early or st.container()


def lazy_expander(label: str, key: str):
    """An expander that reruns the page when it opens or closes, so that its body can be built
    only while `.open` (`with lazy_expander(...) as box: if not box.open: return`). Whether it
    is open is kept in the URL."""
    return st.expander(label, key=key, on_change="rerun", bind="query-params")


@dataclass
class TrainingLayout:
    """Where a training page draws: `head` (above the settings: the presets and Reset), `groups`
    (one container per settings group), `buttons` (Start, Pause, ...) and `stage` (a context
    for the live views)."""

    head: Any
    groups: list[Any]
    buttons: Any
    stage: Any


def training_layout(groups: list[str]) -> TrainingLayout:
    """The presets and the settings groups (as tabs) in a narrow left column, and the buttons and
    the live views beside them, so that Start and the main figure are in the first screen (a
    projector's in lecture mode, 1280×720 in normal mode: issue 54; the presets' row above both
    pushed the maps 52–104 px down); on a phone the column comes first."""
    left, stage = st.columns([1 - TRAINING_STAGE, TRAINING_STAGE], gap="medium")
    return TrainingLayout(left.container(), left.tabs(groups), stage.container(), stage)
