"""The shared sidebar: device, global seed, lecture mode, high contrast and figure export format.

Lecture mode must be known before anything is drawn (st.set_page_config collapses the sidebar
only if told first), so app.py asks `lecture_requested()` before `draw_sidebar()`.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import streamlit as st

from attnviz.topics.settings import TABLE
from attnviz.training.devices import available_devices
from attnviz.ui.common.settings import GlobalSettings
from attnviz.ui.common.widgets import apply, draw
from attnviz.ui.lecture.position import alone

STATIC = Path(__file__).parents[1] / "static"  # attnviz/ui/static
FAVICON = STATIC / "favicon.png"  # bundled: no icon is fetched from a font CDN
ALIAS = "sidebar_"  # ?sidebar_lecture=true works as well as ?lecture=true


@cache
def css(name: str) -> str:
    """A bundled style sheet (attnviz/ui/static/<name>.css) as a <style> block."""
    return f"<style>{(STATIC / f'{name}.css').read_text(encoding='utf-8')}</style>"


def adopt_aliases() -> None:
    """Take `sidebar_<key>` from the URL as `<key>` (the prefixed spelling in older links and
    notes) and drop it from the address bar; a value the widget cannot hold is ignored.
    ATTNVIZ_LECTURE=1 (`attnviz serve --lecture`) turns lecture mode on at a session's start."""
    if os.environ.get("ATTNVIZ_LECTURE") == "1" and "lecture" not in st.query_params:
        st.session_state.setdefault("lecture", True)
    for param in TABLE.params:
        alias = ALIAS + param.key
        if alias not in st.query_params:
            continue
        value = param.from_url_text(st.query_params[alias])
        del st.query_params[alias]
        if value is not None and param.key not in st.session_state:
            st.session_state[param.key] = value


def lecture_requested() -> bool:
    """Whether this rerun is in lecture mode: the toggle's state, else the link's (a lesson's
    link is presenter mode, which is lecture mode)."""
    if "lecture" in st.session_state:
        return bool(st.session_state["lecture"])
    if "lesson" in st.query_params and not alone():
        return True  # (a lesson played alone keeps the page's own sizes)
    return TABLE["lecture"].from_url_text(st.query_params.get("lecture", "false")) is True


def draw_sidebar() -> GlobalSettings:
    """Draw the global controls (bound to the URL), apply lecture and contrast styles, and
    return their values."""
    with st.sidebar:
        st.subheader("Settings for every page")
        device = draw(TABLE, "device", choices=available_devices())
        seed = draw(TABLE, "seed")
        lecture = draw(TABLE, "lecture")
        contrast = draw(TABLE, "contrast")
        tables = draw(TABLE, "tables")
        export_format = draw(TABLE, "export")
    if lecture:
        st.html(css("lecture"))  # static CSS, never user text
        exit_lecture_button()
    if contrast:
        st.html(css("high_contrast"))
    return GlobalSettings(
        device, int(seed), bool(lecture), export_format, bool(contrast), bool(tables)
    )


def exit_lecture_button() -> None:
    """A small control, top right of every page, that turns lecture mode off (the sidebar with
    the toggle is collapsed in lecture mode)."""
    with st.container(key="lecture_exit"):
        st.button(
            "Exit lecture mode",
            key="lecture_exit_button",
            icon=":material/close_fullscreen:",
            type="tertiary",
            on_click=apply,
            args=(TABLE, {"lecture": False}),
            help="Back to normal fonts and the sidebar",
        )
