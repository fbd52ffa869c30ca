"""Students' links of a lesson step: the step's page and settings without the presenter's bar,
made absolute with ATTNVIZ_PUBLIC_URL or the address this browser uses (attnviz.lessons.links
checks both). Shared by the presenter's bar, the Lessons page and the room's dialog."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from attnviz.lessons.links import (
    absolute_link,
    browser_base,
    configured_base,
    this_computer_only,
)
from attnviz.lessons.model import Step
from attnviz.topics.registry import Page


def students_link(step: Step) -> str:
    """The step's view without the presenter's bar: its page and parameters (a path)."""
    query = urlencode(step.query(), doseq=True)
    return f"/{step.page}" + (f"?{query}" if query else "")


def link_base(here: Page) -> tuple[str | None, str | None]:
    """The base of students' links: ATTNVIZ_PUBLIC_URL when it is set and valid, else the
    address this browser uses on the page `here`; and a note when one is refused or none is
    known (the link is then the path alone). attnviz.lessons.links checks both."""
    base, refused = configured_base()
    if base is None:
        base = browser_base(st.context.url, here.url)
    if base is None:
        known = "No address is known here: put the app's address before the path."
        return None, f"{refused} {known}" if refused else known
    local = this_computer_only(base)
    return base, " ".join(n for n in (refused, local) if n) or None


def show_link(step: Step, base: str | None) -> None:
    """The step's absolute link in a code block: its copy button copies it in one click."""
    st.code(absolute_link(base, students_link(step)), language=None, wrap_lines=True)
