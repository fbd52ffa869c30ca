"""Page furniture: the intro paragraph, the "try this" box, lazy sections. (Presets and Reset
derive from the page's parameter table: attnviz.ui.params.widgets.)"""

from __future__ import annotations

import streamlit as st

from attnviz.ui.sidebar import settings


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
