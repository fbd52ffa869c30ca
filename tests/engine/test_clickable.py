"""attnviz.figures.clickable: a marker on each heatmap cell, at that cell, carrying its (row,
column) and value; no hover on a gap; the cell read back from a selection as Streamlit sends it.
(That a click in Chromium then does what the page says: tests/browser/test_cell_clicks.py.)"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.clickable import cell_of, clickable_cells

Z = [[0.5, math.nan, math.nan], [0.25, 0.75, math.nan]]  # 2 queries × 3 keys, the future blank
X, Y = ["The", "␣cat", "␣sat"], ["The", "␣cat"]
TEMPLATE = "query: %{y}<br>key: %{x}<br>value: %{z:.4f}<extra></extra>"


def heat() -> go.Figure:
    return go.Figure(go.Heatmap(z=Z, x=X, y=Y, hovertemplate=TEMPLATE, hoverongaps=False))


def test_every_cell_has_a_marker_at_its_labels_with_its_row_column_and_value():
    fig = clickable_cells(heat())
    assert len(fig.data) == 2 and fig.data[0].type == "heatmap"
    marks = fig.data[1]
    seen = {
        (x, y): tuple(data) for x, y, data in zip(marks.x, marks.y, marks.customdata, strict=True)
    }
    expected = {
        (X[c], Y[r]): (r, c, None if math.isnan(Z[r][c]) else Z[r][c])
        for r in range(2)
        for c in range(3)
    }
    assert seen == expected
    hover = dict(zip(zip(marks.x, marks.y, strict=True), marks.hoverinfo, strict=True))
    assert hover[("␣cat", "The")] == "none" and hover[("␣cat", "␣cat")] == "all"
    assert marks.hovertemplate == "query: %{y}<br>key: %{x}<br>value: %{customdata[2]:.4f}" + (
        "<extra></extra>"
    )
    assert marks.marker.opacity == 0 and fig.layout.hoverdistance == -1
    # markers pad an axis's autorange; the map's own extent bounds it: categories ±0.5
    x_range, y_range = fig.layout.xaxis.autorangeoptions, fig.layout.yaxis.autorangeoptions
    assert (x_range.minallowed, x_range.maxallowed) == (-0.5, 2.5)
    assert (y_range.minallowed, y_range.maxallowed) == (-0.5, 1.5)
    assert len(heat().data) == 1, "the figure given is left as it was"


def test_a_heatmap_without_labels_is_numbered_and_a_figure_without_one_is_unchanged():
    fig = clickable_cells(go.Figure(go.Heatmap(z=np.ones((2, 2)))))
    assert list(fig.data[1].x) == [0, 1, 0, 1] and list(fig.data[1].y) == [0, 0, 1, 1]
    layers = clickable_cells(go.Figure(go.Heatmap(z=np.ones((3, 2)), y=[10, 20, 30])))
    y_range = layers.layout.yaxis.autorangeoptions  # numbers: half a step past the ends
    assert (y_range.minallowed, y_range.maxallowed) == (5.0, 35.0)
    bars = go.Figure(go.Bar(y=[1, 2]))
    assert clickable_cells(bars) is bars


def test_the_cell_is_read_from_a_selection_as_streamlit_sends_it():
    point = {"curve_number": 1, "point_index": 4, "x": "␣cat", "y": "␣cat"}
    assert cell_of([point | {"customdata": [1, 1, 0.75]}]) == (1, 1)
    assert cell_of([point | {"customdata": {"0": 1, "1": 2}}]) == (1, 2)  # a typed array's row
    assert cell_of([{"point_index": [1, 1]}]) is None  # a heatmap's own point: no marker
    assert cell_of([]) is None


def test_a_map_of_more_cells_than_the_bound_is_left_as_it_is():
    from attnviz.figures.clickable import MAX_CELLS, is_clickable

    side = int(MAX_CELLS**0.5) + 1  # (side, side): over the bound
    big = go.Figure(go.Heatmap(z=np.ones((side, side))))
    assert clickable_cells(big) is big and not is_clickable(big)
    assert is_clickable(clickable_cells(go.Figure(go.Heatmap(z=np.ones((side - 1, side - 1))))))
