"""Home's three ways in for a newcomer: learn (the first bundled lesson, played alone), teach (the
Lessons page: present one to a room) and from Python (three lines that draw the text page's main
figure in a notebook; tests/app/test_home.py runs them)."""

from __future__ import annotations

import streamlit as st

from attnviz.lessons.first import first_start
from attnviz.topics import registry

# the text page and its scene's main view, named here so that the first screen of a cold server
# imports no scene (the text scene brings torch: 1.3 s); tests/app/test_home.py checks both
PYTHON_PAGE, PYTHON_VIEW = "text", "heads_grid"


def python_start() -> str:
    """The three lines: the text page's scene on a short sentence, and its main figure."""
    return (
        "import attnviz as av\n"
        f's = av.scene("{PYTHON_PAGE}", ta_text="The cat sat on the mat.")\n'
        f's.views()["{PYTHON_VIEW}"]  # a Plotly figure'
    )


def ways_in() -> None:
    """Three bordered columns: learn, teach, from Python."""
    learn, teach, notebook = st.columns(3, border=True)
    with learn:
        st.markdown("**Learn** at your own pace: a lesson predicts, then shows, one idea a step.")
        slug, first_page = first_start()  # not every lesson loaded: see attnviz.lessons.first
        st.page_link(
            registry.page(first_page).script,
            label="Start the first lesson",
            icon=":material/school:",
            query_params={"lesson": slug, "step": "1", "alone": "true"},
        )
    with teach:
        st.markdown(
            "**Teach** a room: **Present** a lesson in lecture mode; students join with the code "
            "or QR on the projector and vote on their phones."
        )
        st.page_link("pages/lessons_page.py", label="Lessons", icon=":material/slideshow:")
    with notebook:
        st.markdown("**From Python** (a notebook in this folder): the same scenes and figures.")
        st.markdown(as_code_lines(python_start()))


def as_code_lines(code: str) -> str:
    """`code` as Markdown: a line of inline code each, not a code block. Streamlit's code block
    loads its syntax highlighter (Prism registering ~300 languages as its module first runs),
    150 ms of a cold home page's script in Chromium: without it home was done 1.29–1.39 s after
    it was asked for, against 1.54–1.72 s (4 cold starts each, the same hour)."""
    return "  \n".join(f"`{line}`" for line in code.splitlines())
