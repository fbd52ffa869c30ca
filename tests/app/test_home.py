"""Home starts people (issue 54): three ways in, learn (the first lesson, played alone), teach
(Lessons) and from Python (three lines, run here as a notebook would run them), then the room
box and every page. That the three fit the first screen at 1280×720: tests/browser/
test_every_page.py."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import plotly.graph_objects as go

from attnviz.topics.registry import page
from attnviz.ui.common.home import PYTHON_PAGE, PYTHON_VIEW, as_code_lines, python_start
from attnviz.ui.lecture.position import lessons
from tests.support.apptest import no_exception, open_page
from tests.support.pages import app_pages


def test_home_offers_the_first_lesson_alone_the_lessons_and_python():
    at = open_page("pages/home.py")
    no_exception(at)
    links = [link.proto for link in at.get("page_link")]
    first = next(link for link in links if link.label == "Start the first lesson")
    slug, lesson = next(iter(lessons().items()))
    assert Path(first.page).stem == Path(app_page(lesson.steps[0].page)).stem
    assert parse_qs(first.query_string) == {"lesson": [slug], "step": ["1"], "alone": ["true"]}
    assert any(link.label == "Lessons" and Path(link.page).stem == "lessons_page" for link in links)
    assert as_code_lines(python_start()) in [m.value for m in at.markdown]
    assert not at.code, "a code block loads Streamlit's syntax highlighter: 150 ms of a cold start"
    assert at.text_input(key="room_code"), "the room box stays"


def app_page(url: str) -> str:
    return next(path for path, _, u in app_pages() if u == url)


def test_the_python_on_home_names_the_text_scenes_main_view():
    """Home names them without importing the scene (a cold server's first screen)."""
    scene = page(PYTHON_PAGE).scene
    assert (scene.url, scene.main_view) == (PYTHON_PAGE, PYTHON_VIEW)


def test_the_python_on_home_draws_a_figure_as_written():
    *lines, last = python_start().splitlines()
    scope: dict = {}
    exec("\n".join(lines), scope)  # noqa: S102 (the product's own three lines)
    figure = eval(last.split("#")[0], scope)  # noqa: S307 (the notebook cell's last line)
    assert isinstance(figure, go.Figure)
    assert figure.data and figure.data[0].type == "heatmap" and figure.layout.title.text
