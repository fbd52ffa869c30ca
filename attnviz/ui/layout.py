"""Page furniture: the intro paragraph, the "try this" box, lazy sections. (Presets and Reset
derive from the page's parameter table: attnviz.ui.params.widgets.)"""

from __future__ import annotations

import streamlit as st


def intro(title: str, what: str) -> None:
    """Page title and the one-paragraph "what you are looking at"."""
    st.title(title)
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
