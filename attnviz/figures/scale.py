"""Figures of the Attention at scale page's masks, linear-attention and cost parts, from plain
arrays: a mask as a picture (kept scores dark) with their count in the title, the layers a token
needs to reach another (the receptive field), one query's softmax and linear weights side by
side, and log–log lines (scores a mask computes, measured time and memory) with each line's
slope in the legend. The maps under each mask are text.heads_grid's small multiples."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import token_axis
from attnviz.figures.base import BAR_COLOR, HIGHLIGHT_COLOR, base_layout, fast_figure, heatmap_spec
from attnviz.figures.fonts import NARROW_TITLE, titled
from attnviz.figures.text import HEAD_COLORS, shown

KEPT_SCALE = [[0.0, "#f1f3f5"], [1.0, "#1c3f94"]]  # dropped: light grey; kept: dark blue
REACH_SCALE = [[0.0, "#08306b"], [1.0, "#9ecae1"]]  # 1 layer dark, the last light
LEGEND = {"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0}


def mask_figure(mask: np.ndarray, tokens: Sequence[str], title: str) -> go.Figure:
    """A (T, T) boolean mask: a dark cell where query i (row) may attend to key j (column)."""
    trace, layout = heatmap_spec(
        np.asarray(mask, dtype=np.float32),
        shown(list(tokens)),
        shown(list(tokens)),
        title,
        zmin=0.0,
        zmax=1.0,
    )
    trace.update(colorscale=KEPT_SCALE, showscale=False, xgap=1, ygap=1)
    trace["hovertemplate"] = "query %{y}<br>key %{x}<br>%{z:.0f} (1: scored)<extra></extra>"
    titled(layout, title, NARROW_TITLE)
    square(layout, len(tokens))
    return fast_figure([trace], layout)


def square(layout: dict, t: int) -> None:
    """Rows about as tall as a column is wide in a page column (21 px a row, 175 px for the title,
    the rotated key labels and the axis titles): the map reads as the square it is, and the
    default text's 18 tokens fit a laptop's first screen under the title (553 px)."""
    layout["height"] = max(layout.get("height") or 0, min(820, max(420, 21 * t + 175)))


def reach_figure(first: np.ndarray, tokens: Sequence[str], layers: int, title: str) -> go.Figure:
    """(T, T) int: the fewest layers after which token i (row) holds token j's information, blank
    where it does not within `layers`; darker = fewer layers."""
    z = np.where(first > 0, first, np.nan).astype(np.float32)
    trace, layout = heatmap_spec(
        z,
        shown(list(tokens)),
        shown(list(tokens)),
        title,
        x_title="from token",
        y_title="token",
        zmin=1.0,
        zmax=float(max(layers, 2)),
        colorscale="Blues_r",
    )
    trace["colorscale"] = REACH_SCALE  # the last layer stays a visible light blue
    trace["colorbar"] = {"title": {"text": "layers"}, "dtick": 1}
    trace["hovertemplate"] = "token %{y}<br>from %{x}<br>after %{z:.0f} layer(s)<extra></extra>"
    titled(layout, title, NARROW_TITLE)
    square(layout, len(tokens))
    return fast_figure([trace], layout)


def row_compare_figure(
    softmax_row: np.ndarray, linear_row: np.ndarray, tokens: Sequence[str], title: str
) -> go.Figure:
    """One query's weights over the keys: softmax's and linear attention's bars side by side."""
    labels = shown(list(tokens))
    traces = [
        {
            "type": "bar",
            "x": labels,
            "y": np.asarray(row, dtype=np.float32),
            "name": name,
            "marker": {"color": color},
            "hovertemplate": f"{name}<br>key %{{x}}: %{{y:.3f}}<extra></extra>",
        }
        for name, row, color in (
            ("softmax", softmax_row, BAR_COLOR),
            ("linear", linear_row, HIGHLIGHT_COLOR),
        )
    ]
    layout = base_layout(title, 380, NARROW_TITLE)
    # the legend beside the bars: below them it cut the upright key labels, above them it met
    # the title once lecture mode enlarged it
    layout.update(barmode="group", legend={"orientation": "v", "x": 1.01, "y": 1, "yanchor": "top"})
    layout["xaxis"] = token_axis(labels)  # the title names the keys
    layout["yaxis"] = {"title": {"text": "weight"}, "rangemode": "tozero"}
    return fast_figure(traces, layout)


def loglog_figure(
    lengths: Mapping[str, Sequence[float]],
    values: Mapping[str, Sequence[float]],
    slopes: Mapping[str, float],
    title: str,
    y_title: str,
    unit: str,
) -> go.Figure:
    """One line per name over its own lengths (tokens T, named in `title`), both axes log; each
    name's slope in the legend."""
    traces = []
    for i, (name, ys) in enumerate(values.items()):
        label = f"{name} (slope {slopes[name]:.2f})"
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": label,
                "x": np.asarray(lengths[name], dtype=np.float32),
                "y": np.asarray(ys, dtype=np.float64),
                "line": {"color": HEAD_COLORS[i % len(HEAD_COLORS)]},
                "hovertemplate": f"{name}<br>%{{x}} tokens: %{{y:.4~g}} {unit}<extra></extra>",
            }
        )
    layout = base_layout(title, 420, NARROW_TITLE)
    # the x axis is named in the title: an axis title under it collided with the legend
    layout["xaxis"] = {"type": "log", "dtick": float(np.log10(4))}
    layout["yaxis"] = {
        "title": {"text": y_title},
        "type": "log",
        "exponentformat": "power",
        "dtick": 1,
    }
    layout["legend"] = LEGEND
    layout["margin"]["b"] = 10
    return fast_figure(traces, layout)
