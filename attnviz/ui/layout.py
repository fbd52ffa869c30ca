"""Page furniture: the intro paragraph, the "try this" box, preset buttons, error messages."""

from __future__ import annotations

from collections.abc import Callable

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


def apply_preset(values: dict) -> None:
    """on_click callback: write a preset's widget values into session state."""
    for key, value in values.items():
        st.session_state[key] = value


def presets(options: dict[str, dict], key: str, on_apply: Callable[[], None] | None = None) -> None:
    """One button per preset; clicking sets the widgets listed in its dict."""
    st.markdown("**Presets**")
    items = list(options.items())
    per_row = 4 if len(items) <= 4 else 3
    for start in range(0, len(items), per_row):
        row = items[start : start + per_row]
        for col, (label, values) in zip(st.columns(per_row), row, strict=False):

            def _apply(values=values):
                apply_preset(values)
                if on_apply:
                    on_apply()

            col.button(label, key=f"{key}_{label}", on_click=_apply, width="stretch")


def clamp_state(key: str, top: int) -> None:
    """A stored slider value above its new maximum (fewer tokens, heads or rows) falls back
    to the maximum, so the slider never receives an out-of-range value."""
    if st.session_state.get(key, 0) > top:
        st.session_state[key] = top


def lazy_expander(label: str, key: str):
    """An expander that reruns the page when it opens or closes, so that its body can be built
    only while `.open` (`with lazy_expander(...) as box: if not box.open: return`). Whether it
    is open is kept in the URL."""
    return st.expander(label, key=key, on_change="rerun", bind="query-params")
