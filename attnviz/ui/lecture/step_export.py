"""The sidebar's "This view as a lesson step": the current page's changed settings as a
[[steps]] block to paste into a lesson file. Cheap on every rerun: the lesson code and the
page's table are imported only while the box is open."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.topics.registry import Page


def this_view_as_a_step(page: Page) -> None:
    """Sidebar box (built only while open; open state in the URL)."""
    if page.topic is None:
        return
    with st.sidebar.expander(
        "This view as a lesson step", key="lesson_export", on_change="rerun"
    ) as box:
        if not box.open:
            return
        from attnviz.lessons.loader import step_toml

        title = st.text_input("Step title", "A step", key="lesson_step_title")
        st.code(
            step_toml(page.url, changed_values(page), title, "What to say here."), language="toml"
        )
        st.caption("Paste it into a file in lessons/ (see the Lessons page).")


def changed_values(page: Page) -> dict[str, Any]:
    """The page's parameters whose widgets now hold something other than the default."""
    table = page.params().TABLE
    values = {p.key: st.session_state.get(p.key, p.default) for p in table.params}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    return {k: v for k, v in values.items() if v != table[k].default and table[k].valid(v)}
