"""Static tables show what a person typed as typed (st.table reads Markdown in every cell; the
cells pass through attnviz.ui.common.plain_table): a wide vector's first dimensions in numbers
under its map ("Inside one block of a real model": d = 576 does not fit, so a slice is printed
and the title says what is sliced), whose rows are tokens, and soft select's table, whose names
a shared link carries. The slice is the vectors' own values (the test's matrix is the oracle),
as many as fit a stage's view."""

from __future__ import annotations

import numpy as np
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from attnviz.figures.base import bar_chart
from attnviz.figures.real_block import vectors
from attnviz.figures.table import number_slice
from attnviz.io.table_text import encode_table
from attnviz.topics.soft_select.select import example_table
from attnviz.ui.common.figures import slice_columns
from tests.support.apptest import open_page

HOSTILE = ["+ attention", "[x](http://e.com)", "www.a.io", "- a list", "`code`", "<b>bold</b>"]


def test_a_wide_vector_prints_its_first_dims_to_two_decimals():
    matrix = np.random.default_rng(0).normal(scale=3.0, size=(4, 576))  # (T, D)
    labels = ["The", "␣cat", "␣sat", "␣down"]
    part = number_slice(vectors(matrix, labels, (1, 3), "1. A stream", 576))
    assert part.title == "In numbers: dims 0–7 of 576"
    assert list(part.data.index) == ["␣cat", "␣down"]
    assert list(part.data.columns) == [str(c) for c in range(8)]
    expected = [[f"{matrix[r, c]:.2f}" for c in range(8)] for r in (1, 3)]
    assert part.data.values.tolist() == expected
    fewer = number_slice(vectors(matrix, labels, (0,), "1. A stream", 576), most=3)
    assert fewer.data.values.tolist() == [[f"{matrix[0, c]:.2f}" for c in range(3)]]
    assert fewer.title == "In numbers: dims 0–2 of 576"


def test_only_a_figure_that_asks_for_a_slice_gets_one():
    assert number_slice(bar_chart(np.array([0.2, 0.8]), ["a", "b"], "Bars", "p", "x")) is None


def test_a_stage_view_gets_as_many_values_as_fit_it():
    """Two views side by side at 1280×720 (about 380 px each) and one across (about 780)."""
    assert slice_columns(None) is None  # off a stage the table scrolls on a phone
    assert slice_columns(380) == 4
    assert slice_columns(780) == 11  # the figure asks for 8: number_slice takes the fewer
    assert slice_columns(100) == 3


def _slice_script():
    import numpy as np

    from attnviz.figures.real_block import vectors
    from attnviz.figures.text import shown
    from attnviz.ui.common.figures import show
    from tests.app.test_plain_tables import HOSTILE

    matrix = np.arange(len(HOSTILE) * 20, dtype=float).reshape(len(HOSTILE), 20) / 7
    labels = shown(HOSTILE)  # as the page writes tokens into a figure
    show(vectors(matrix, labels, range(len(HOSTILE)), "1. Hostile rows", 20), "rb_stream")


def read_back(cell: str) -> str:
    """A cell as CommonMark shows it, after asserting it is no list, link or HTML (the invisible
    word joiner, which only breaks autolinks, left out)."""
    blocks = MarkdownIt("commonmark").parse(cell)
    kinds = {b.type for b in blocks} | {c.type for b in blocks for c in (b.children or [])}
    assert not kinds & {"bullet_list_open", "link_open", "html_inline", "html_block"}, cell
    inline = [c for b in blocks for c in (b.children or [])]
    text = "".join(c.content for c in inline if c.type in ("text", "text_special"))
    return text.replace("\u2060", "")


def test_the_slice_shows_each_label_as_typed_and_never_as_markdown():
    at = AppTest.from_function(_slice_script, default_timeout=60).run()
    assert not at.exception
    (table,) = at.table
    shown = table.value
    for cell, typed in zip(shown.index, HOSTILE, strict=True):
        assert read_back(cell) == typed.replace(" ", "␣")  # as the map writes a space
    assert read_back(shown.iloc[0, 1]) == f"{1 / 7:.2f}"


def test_soft_selects_names_from_a_link_are_shown_as_typed():
    names = ["+ item", "www.evil.io", "[x](y)", "**loud**", "<i>tag</i>"]
    table = example_table().assign(name=names)
    at = open_page("pages/soft_select.py", {"ss_table": encode_table(table)})
    assert not at.exception
    (terms,) = at.table
    assert [read_back(cell) for cell in terms.value.iloc[:, 0]] == names
