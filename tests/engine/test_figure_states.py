"""Figure fixes for presets and lesson steps the layout checker found broken
(tests/browser/test_layout_states.py): lecture tick labels of crowded axes reach 14 px, a
lecture title of several lines sits at the figure's top above its plot, maps of a grid row
leave a label's line between them, and narrow figures' titles wrap to their column."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures.base import heatmap
from attnviz.figures.grid import auto_columns, plan_grid
from attnviz.figures.kernel import gap_note, retitle
from attnviz.figures.lecture import scale_fonts
from attnviz.figures.text import heads_grid
from attnviz.figures.vision import patch_grid_figure


@pytest.mark.parametrize("factor", [1.2, 1.6, 2.0])
def test_crowded_rows_reach_14_px_in_lecture_mode_without_outgrowing_the_factor(factor):
    labels = [f"c{i}" for i in range(40)]  # 40 rows: a 9 px tick font, crowded
    fig = heatmap(np.eye(40), labels, labels)
    assert fig.layout.yaxis.tickfont.size == 9
    lecture = scale_fonts(go.Figure(fig), factor)
    assert lecture.layout.yaxis.tickfont.size == min(round(9 * factor), 14)
    plot = lecture.layout.height - lecture.layout.margin.t - 100  # as test_figure_rows
    assert plot / 40 >= lecture.layout.yaxis.tickfont.size + 2  # each label keeps its line


def test_a_lecture_title_of_several_lines_is_pinned_above_its_plot():
    grid = heads_grid(np.full((4, 4, 4), 0.25, dtype=np.float32), list("abcd"), columns=4)
    grid.update_layout(
        title_text="Step 0, layer 0: attention of each head (row: query, column: key)"
    )
    lecture = scale_fonts(grid, 1.6)
    title = lecture.layout.title
    lines = title.text.count("<br>") + 1
    size = round(14 * 1.6 * 1.25)
    assert lines > 1 and (title.yref, title.y, title.yanchor) == ("container", 1.0, "top")
    # plotly.js draws such a title 0.9 em above its anchor: the pad puts its top 8 px down
    assert title.pad.t == 8 + round(0.9 * size)
    assert lecture.layout.margin.t >= 8 + lines * size * 1.3 + 8  # and its last line clear
    one_line = scale_fonts(heatmap(np.eye(2), title="Short"), 1.6).layout.title
    assert one_line.y is None and one_line.yanchor is None  # Plotly centres it in the margin
    placed = retitle(heatmap(np.eye(2)), "A<br>title the builder placed")
    assert scale_fonts(placed, 1.6).layout.title.yanchor == "top"
    assert placed.layout.title.pad.t == 26  # its own pad, untouched


@pytest.mark.parametrize("heads, t", [(4, 13), (4, 8), (2, 30), (3, 40)])
def test_maps_of_a_row_leave_a_label_line_between_them_on_a_phone(heads, t):
    columns = auto_columns(heads, t)
    plan = plan_grid(heads, columns, [f"w{i}" for i in range(t)])
    paper = 358 - 50 - 80  # a phone's figure less the query labels and the colour bar's margin
    for left, right in zip(plan.x_domains, plan.x_domains[1:], strict=False):
        if right[0] > left[0]:  # same row
            assert (right[0] - left[1]) * paper >= 12 * 0.9 + 1  # a 12 px label's ink + slack


def test_a_column_title_wraps_its_long_lines_keeping_their_words():
    note = gap_note(3, 2).strip()  # one line of 65 characters
    fig = retitle(heatmap(np.eye(2)), f"Data and the fitted f_θ(x)<br>{note}")
    lines = fig.layout.title.text.split("<br>")
    assert lines[0] == "Data and the fitted f_θ(x)" and all(len(line) <= 26 for line in lines)
    assert " ".join(lines[1:]) == note and "gaps: no sample in reach" in lines[1]
    assert fig.layout.margin.t == 30 + 32 * len(lines) and len(lines) == 4


def test_the_patch_grid_title_fits_its_narrow_column():
    fig = patch_grid_figure(
        np.zeros((3, 32, 32), dtype=np.float32), 4, "Image 123 (a bottom right)"
    )
    assert all(len(line) <= 20 for line in fig.layout.title.text.split("<br>"))
    lecture = scale_fonts(go.Figure(fig), 1.6)
    # 16 characters of a 28 px bold title are at most 211 px: the column is 216 px at 1280
    assert all(len(line) <= 16 for line in lecture.layout.title.text.split("<br>"))
