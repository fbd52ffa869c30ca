"""Every figure's data as a table (attnviz.figures.table), the text alternative shown under each
figure with "Figures as tables too": heatmaps as rows × columns, bars and lines one column per
trace, labels as plain text, bounded size; and on a real page (AppTest), the tables under the
soft select's figures hold the numbers the figures plot."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures.table import MAX_COLUMNS, MAX_ROWS, figure_tables
from tests.support.apptest import figures, no_exception, open_page, plotly_array


def test_a_heatmap_becomes_rows_by_columns_with_its_labels_as_plain_text():
    z = [[0.1, 0.9], [0.5, 0.5]]
    fig = go.Figure(go.Heatmap(z=z, x=["&lt;b&gt;", "a ✓"], y=["q", "q"]))
    (table,) = figure_tables(fig)
    assert table.data.values.tolist() == z
    assert list(table.data.columns) == ["<b>", "a ✓"]  # unescaped: shown as data, not HTML
    assert list(table.data.index) == ["q (0)", "q (1)"]  # a repeated label, told apart


def test_bars_and_lines_are_one_column_per_trace():
    fig = go.Figure(
        [
            go.Bar(x=[3, 1], y=["<b>A</b>  yes", "B  no"], orientation="h", name="Round 1"),
            go.Bar(x=[0, 4], y=["<b>A</b>  yes", "B  no"], orientation="h", name="Round 2"),
        ]
    )
    (table,) = figure_tables(fig)
    assert table.data.to_dict() == {
        "Round 1": {"A  yes": 3.0, "B  no": 1.0},
        "Round 2": {"A  yes": 0.0, "B  no": 4.0},
    }
    line = go.Figure(go.Scatter(x=[0, 10, 20], y=[2.5, 1.0, 0.25], name="loss"))
    assert figure_tables(line)[0].data["loss"].tolist() == [2.5, 1.0, 0.25]


def test_a_large_map_is_cut_and_says_so_and_an_image_has_no_table():
    z = np.arange(300 * 100, dtype=float).reshape(300, 100)
    (table,) = figure_tables(go.Figure(go.Heatmap(z=z)))
    assert table.data.shape == (MAX_ROWS, MAX_COLUMNS)
    assert table.data.iloc[-1, -1] == z[MAX_ROWS - 1, MAX_COLUMNS - 1]
    assert "first 200 of 300 rows, 64 of 100 columns" in table.title
    image = go.Figure(go.Image(z=np.zeros((4, 4, 3), dtype=np.uint8)))
    assert figure_tables(image) == []


@pytest.mark.slow
def test_the_tables_under_a_pages_figures_hold_what_the_figures_plot():
    at = open_page("pages/soft_select.py")
    plain = len(at.dataframe)  # the page's own table of keys and values
    at.toggle(key="tables").set_value(True).run()  # the sidebar's "Figures as tables too"
    no_exception(at)
    frames = [el.value for el in at.dataframe][plain:]  # after the page's own table
    shown = figures(at)
    assert len(frames) >= len(shown) > 0, "a table under every figure"
    weights = next(f for f in shown if f["layout"]["title"]["text"].startswith("2. Weights"))
    bars = np.asarray(plotly_array(weights["data"][0]["y"]), dtype=float)
    assert any(
        len(frame) == len(bars) and np.allclose(frame.iloc[:, 0].to_numpy(float), bars)
        for frame in frames
    ), "the weights' table holds the bars' heights"
