"""Adding a page is one topic folder, one page script and one table entry (issue 37): a throwaway
page made that way, with no other file touched, is navigated and linked from home, passes the
every-page checks, plays as a lesson step with a computed question, and runs from Python. (Its
figures go through the layout checker in tests/browser/test_adding_a_page_browser.py.)"""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import attnviz as av
from attnviz.lessons.loader import parse_lesson
from attnviz.ui.lecture import position
from tests.app import test_every_page as every_page
from tests.support.apptest import figures, no_exception, open_page
from tests.support.pages import ROOT
from tests.support.throwaway import LESSON, URL, product_status, throwaway_page


@pytest.fixture(scope="module")
def throwaway(tmp_path_factory):
    before = product_status()
    with throwaway_page(tmp_path_factory.mktemp("new_page")) as entry:
        yield entry
    assert product_status() == before, "adding the page touched a file of the product"


def test_it_is_navigated_and_linked_from_home(throwaway, monkeypatch):
    navigated, linked = [], []
    real_navigation, real_link = st.navigation, st.page_link

    def navigation(pages, **kwargs):  # what app.py hands Streamlit's navigation
        navigated.extend((section, p.url_path) for section, ps in pages.items() for p in ps)
        return real_navigation(pages, **kwargs)

    def page_link(page, **kwargs):  # AppTest resolves a link against pages/ only (the server
        linked.append((str(page), kwargs.get("label")))  # against the navigation): record
        return None if page == throwaway.script else real_link(page, **kwargs)

    monkeypatch.setattr(st, "navigation", navigation)
    monkeypatch.setattr(st, "page_link", page_link)
    home = open_page("pages/home.py")
    no_exception(home)
    assert ("Start", URL) in navigated
    assert (throwaway.script, "Throwaway") in linked
    at = open_page(throwaway.script)
    no_exception(at)
    assert at.title[0].value == "Throwaway"
    assert at.slider(key="tw_n").value == 4
    assert [f["layout"]["title"]["text"] for f in figures(at)] == ["Weights (4 × 4)"]


def test_it_passes_the_every_page_checks(throwaway):
    every_page.test_page_opens_cleanly(throwaway.script)
    every_page.test_main_widget_changes_what_is_shown(throwaway.script)
    every_page.test_every_widget_at_its_extremes(throwaway.script)
    every_page.test_page_in_lecture_mode_with_high_contrast(throwaway.script)


def test_it_plays_as_a_lesson_step_with_a_computed_question(throwaway, monkeypatch):
    lesson = parse_lesson(LESSON, "throwaway_lesson")
    monkeypatch.setattr(position, "lessons", lambda: {"throwaway_lesson": lesson})
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(throwaway.script)
    at.query_params.update({"lesson": "throwaway_lesson", "step": "1"})
    at.run()
    no_exception(at)
    assert at.slider(key="tw_n").value == 6  # the step's settings, in the page's widgets
    assert any("step 1 of 1" in str(bar.proto.text) for bar in at.get("progress"))
    (guess,) = [r for r in at.radio if r.key and r.key.startswith("lesson_guess_")]
    expected = av.scene(URL, tw_n=6).answers()["top_key"]
    assert list(guess.options) == list(expected.options)
    at.button(key="lesson_reveal").click().run()
    assert expected.answer in at.get("success")[0].value


def test_it_runs_from_python(throwaway):
    assert URL in av.pages()
    s = av.page_link(f"/{URL}?tw_n=3")
    fig = s.views()["tw_map"]
    assert fig.layout.title.text == "Weights (3 × 3)"
    assert "av.scene(\n    'throwaway',\n    tw_n=3," in s.python()
