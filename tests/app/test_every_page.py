"""Every page in app.py's navigation, driven with AppTest like a person would.

Pages come from the page table (attnviz.ui.navigation), so a new page is covered without
touching this file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from attnviz.figures.base import BASE_FONT
from tests.support.apptest import (
    figures,
    keyed_widgets,
    no_exception,
    open_page,
    other_values,
    set_widget,
    shown,
)
from tests.support.pages import ROOT, app_pages

PAGES = app_pages()
PAGE_IDS = [url for _, _, url in PAGES]


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=PAGE_IDS)
def test_page_opens_cleanly(path):
    at = open_page(path)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert at.title or at.get("page_link"), "a page shows a title"


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=PAGE_IDS)
def test_main_widget_changes_what_is_shown(path):
    at = open_page(path)
    widgets = [
        kw
        for kw in keyed_widgets(at, ("slider", "selectbox"))
        if other_values(getattr(at, kw[0])(key=kw[1]))
    ]
    if not widgets:
        assert path == "pages/home.py", f"{path} has no keyed slider or selectbox in its main area"
        return
    kind, key = widgets[0]
    before = shown(at)
    set_widget(at, kind, key, other_values(getattr(at, kind)(key=key))[0])
    at.run()
    no_exception(at)
    assert shown(at) != before, f"changing {kind} {key!r} changed nothing on {path}"


def open_every_lazy_expander(at) -> None:
    """Open the expanders that build their body only while open (they have a key)."""
    keys = [e.key for e in at.main.expander if e.key and not e.key.startswith("$$")]
    for key in keys:
        at.session_state[key] = True
    if keys:
        at.run()
        no_exception(at)


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=PAGE_IDS)
def test_every_widget_at_its_extremes(path):
    at = open_page(path)
    open_every_lazy_expander(at)
    for kind, key in keyed_widgets(at):
        try:
            widget = getattr(at, kind)(key=key)
        except KeyError:
            continue  # hidden by an earlier change
        if widget.disabled:
            continue
        for value in other_values(widget):
            set_widget(at, kind, key, value)
            at.run()
            no_exception(at)


def test_home_links_every_page():
    at = open_page("pages/home.py")
    linked = [(link.proto.page, link.proto.label) for link in at.get("page_link")]
    others = [(Path(p).stem, title) for p, title, _ in PAGES if p != "pages/home.py"]
    assert linked == others


def open_in_lecture_mode(path: str) -> AppTest:
    """Open `path` as from a link with lecture mode and high contrast on (the sidebar reads the
    link on the first run; the page then runs with those settings)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"lecture": "true", "contrast": "true"})
    at.run()
    if path == "pages/home.py":  # the default page: AppTest's switch to it drops app.py's part
        return at
    return at.switch_page(path).run()


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=PAGE_IDS)
def test_page_in_lecture_mode_with_high_contrast(path):
    at = open_in_lecture_mode(path)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["lecture"] and at.session_state["contrast"]
    assert at.button(key="lecture_exit_button"), "no way back from lecture mode"
    for fig in figures(at):
        size = fig["layout"].get("font", {}).get("size")
        assert size and size >= round(BASE_FONT * 1.6), f"a figure on {path} has font {size}"
        title = fig["layout"].get("title", {}).get("text") or ""
        lines = title.split("<br>")
        assert all(len(line) <= 40 for line in lines), f"an unwrapped title: {title!r}"
    if path != "pages/home.py":
        assert at.get("popover"), f"{path}: the intro is not folded into 'About this page'"
