"""A measurement taken live when asked (the recurrence page's RNN vs attention, the scale page's
cost): a Measure button, its rows kept in the session for the device they were taken on, and
the prompt to press it until then. Numbers are never stored between sessions."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st


def measured(
    state_key: str, button_key: str, device: str, spinner: str, take: Callable[[], list[dict]]
) -> list[dict] | None:
    """The rows `take()` measured on `device` (each row has "device"), taken when the Measure
    button is pressed; None (and a prompt) until they exist for this device."""
    if st.button("Measure (about 5 s)", key=button_key, icon=":material/timer:"):
        with st.spinner(spinner):
            st.session_state[state_key] = take()
    rows = st.session_state.get(state_key)
    if not rows or rows[0]["device"] != device:
        st.caption("Press Measure: the numbers are taken live, not stored.")
        return None
    return rows
