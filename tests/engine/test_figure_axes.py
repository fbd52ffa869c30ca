"""Token axes are categorical everywhere: digit tokens ("1", "2", ...) are categories in their
order, never numbers, repeated tokens stay distinct columns, every row label is drawn up to 64
tokens (a readable every-k-th subset beyond), and an x axis of more than SPACED_MIN labels is
spaced by Plotly to the width it is drawn at. Built from a known anti-diagonal matrix, so the
drawn argmax per row must be the mirrored token."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures import base as plots
from attnviz.figures.axes import LABEL_ALL_MAX, SPACED_MIN, label_step, token_axis
from attnviz.figures.grid import auto_columns
from attnviz.figures.long_maps import window_figure
from attnviz.figures.pretrained import model_view, qk_bars, qk_products
from attnviz.figures.text import heads_grid, temperature_figure, vectors_map, weights_map

DIGITS = ["1", "2", "3", "2"]  # a repeated digit: the second "2" must be its own column
DISTINCT = ["1", "2", "3", "2·1"]
ANTI = np.fliplr(np.eye(4, dtype=np.float32))  # query i attends to key T-1-i


def axes_of(fig: go.Figure) -> dict[str, dict]:
    layout = fig.to_dict()["layout"]
    return {k: v for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))}


def token_maps() -> dict[str, go.Figure]:
    two_heads = np.stack([ANTI, ANTI])
    return {
        "heads_grid": heads_grid(two_heads, DIGITS),
        "heads_grid_4cols": heads_grid(two_heads, DIGITS, columns=4),
        "weights_map": weights_map(ANTI, DIGITS, "w"),
        "heatmap": plots.heatmap(ANTI, DIGITS, DIGITS, "h"),
        "window": window_figure(ANTI, DIGITS, (0, 4), (0, 4)),
    }


@pytest.mark.parametrize("name", list(token_maps()))
def test_digit_tokens_are_categories_and_the_anti_diagonal_is_drawn(name):
    fig = token_maps()[name]
    go.Figure(fig.to_dict())  # valid Plotly
    for axis_name, axis in axes_of(fig).items():
        assert axis["type"] == "category", axis_name
    for trace in fig.data:
        x, y = list(trace.x), list(trace.y)
        assert len(set(x)) == 4 and len(set(y)) == 4  # the repeated "2" is its own column
        if name != "window":
            assert x == y == DISTINCT
        z = np.asarray(trace.z, dtype=np.float32)
        drawn = [x[int(j)] for j in z.argmax(axis=1)]
        assert drawn == y[::-1]  # row "1" looks at "2·1", row "2·1" at "1"


def test_every_token_figure_uses_categorical_axes_with_digit_labels():
    rng = np.random.default_rng(0)
    scores, weights = rng.normal(size=4), rng.dirichlet(np.ones(4))
    figs = [
        *qk_bars(scores, weights, DIGITS),
        qk_products(rng.normal(size=3), rng.normal(size=(4, 3)), DIGITS, "1"),
        temperature_figure(rng.dirichlet(np.ones(4), size=3), [0.5, 1.0, 2.0], DIGITS, "1"),
        vectors_map(rng.normal(size=(4, 3)), DIGITS, "v"),
        model_view(rng.dirichlet(np.ones(4), size=(2, 2, 4)).astype(np.float32), DIGITS),
        plots.bar_chart(weights, DIGITS, "b", "w"),
    ]
    for fig in figs:
        go.Figure(fig.to_dict())
        for axis_name, axis in axes_of(fig).items():
            if axis.get("title", {}).get("text") in ("score", "weight", "w", "value"):
                continue  # the value axis of a bar chart is numeric
            if axis.get("title", {}).get("text") == "dimension of the head":
                assert "type" not in axis and list(fig.data[0].x) == [0, 1, 2]
                continue  # head dimensions are numbers: Plotly spaces their ticks to the width
            assert axis["type"] == "category", (fig.layout.title.text, axis_name)


@pytest.mark.parametrize("t", [4, 13, 24, 48, LABEL_ALL_MAX])
def test_every_query_label_is_drawn_up_to_64_tokens_and_keys_fit_the_width(t):
    tokens = [str(i % 10) for i in range(t)]  # digits, repeated
    fig = heads_grid(np.full((3, t, t), 1 / t, dtype=np.float32), tokens)
    labels = list(fig.data[0].x)
    columns = auto_columns(3, t)
    for name, axis in axes_of(fig).items():
        assert list(axis["categoryarray"]) == labels and axis["tickfont"]["size"] >= 9
        if name.startswith("y"):  # every query label, left of each row's first map
            assert list(axis["tickvals"]) == labels and axis["tickmode"] == "array"
            number = int(name[5:] or 1) - 1
            assert axis["showticklabels"] == (number % columns == 0) == axis["automargin"]
        else:  # keys: Plotly spaces upright labels one line apart on the width it gets
            assert "tickvals" not in axis and axis["tickangle"] == -90
    w = weights_map(np.eye(t), tokens, "w")
    assert list(w.layout.yaxis.tickvals) == list(w.data[0].y)
    x = w.layout.xaxis
    if t <= 16:  # a few keys: every label, listed
        assert list(x.tickvals) == list(w.data[0].x)
    else:  # many: no list, Plotly spaces them one line apart (all where they fit the width)
        assert x.tickvals is None and x.tickmode == "auto" and x.tickangle == -90


@pytest.mark.parametrize("t", [16, 17])
def test_x_axes_past_16_labels_are_spaced_by_plotly_and_y_axes_list_every_label(t):
    labels = [f"w{i}" for i in range(t)]
    x, y = token_axis(labels), token_axis(labels, vertical=True)
    assert x["categoryarray"] == y["categoryarray"] == y["tickvals"] == labels
    assert ("tickvals" not in x and x["tickmode"] == "auto") == (t > SPACED_MIN) == (t == 17)


@pytest.mark.parametrize("t", [65, 100, 128, 500])
def test_long_axes_get_a_readable_every_kth_subset(t):
    labels = [f"w{i}" for i in range(t)]
    axis = token_axis(labels, vertical=True)  # rows: the height is planned for the subset
    step = label_step(t)
    assert step > 1 and list(axis["tickvals"]) == labels[::step]
    assert 16 <= len(axis["tickvals"]) <= 40  # readable: neither all nor a handful
    assert axis["categoryarray"] == labels  # every token is still its own category
    x = token_axis(labels)  # columns: as many as the drawn width holds, every k-th
    assert x["categoryarray"] == labels and "tickvals" not in x and x["tickangle"] == -90
