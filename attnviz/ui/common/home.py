"""What the home page offers a newcomer: the first bundled lesson (played alone) and the three
lines of Python that draw a page's figure in a notebook (tests/app/test_home.py runs them)."""

from __future__ import annotations

from attnviz.topics import registry
from attnviz.topics.registry import Page
from attnviz.ui.lecture.position import lessons

PYTHON_START = """import attnviz as av
s = av.scene("text", ta_text="The cat sat on the mat.")
s.views()["heads_grid"]  # each head's map, a Plotly figure"""


def first_lesson() -> tuple[str, Page]:
    """The first bundled lesson's slug and the page its first step opens."""
    slug, lesson = next(iter(lessons().items()))
    return slug, registry.page(lesson.steps[0].page)
