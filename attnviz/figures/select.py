"""Figures of the soft-select page: the key plane with the query, and weights vs temperature."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import fast_figure, line_chart

PLANE_LIMIT = 2.0
GRID_STEPS = 41  # invisible click targets, 0.1 apart


def key_plane(
    keys: np.ndarray, names: list[str], query: np.ndarray, weights: np.ndarray
) -> go.Figure:
    """Keys as dots sized by their weight, the query as a star; click anywhere to move the query."""
    grid = np.linspace(-PLANE_LIMIT, PLANE_LIMIT, GRID_STEPS, dtype=np.float32)
    gx, gy = np.meshgrid(grid, grid)
    click_grid = {  # invisible but clickable: a selection returns its coordinates
        "type": "scatter",
        "x": gx.ravel(),
        "y": gy.ravel(),
        "mode": "markers",
        "marker": {"size": 9, "opacity": 0},
        "showlegend": False,
        "name": "click to move the query",
        "hovertemplate": "move query to (%{x:.1f}, %{y:.1f})<extra></extra>",
    }
    key_dots = {
        "type": "scatter",
        "x": keys[:, 0].astype(np.float32),
        "y": keys[:, 1].astype(np.float32),
        "mode": "markers+text",
        "text": names,
        "textposition": "top center",
        "name": "keys",
        "marker": {"size": (12 + 40 * weights).astype(np.float32), "color": "#3b5bdb"},
        "customdata": weights.astype(np.float32),
        "hovertemplate": "%{text}<br>key (%{x:.2f}, %{y:.2f})<br>weight %{customdata:.3f}<extra></extra>",
    }
    star = {
        "type": "scatter",
        "x": [float(query[0])],
        "y": [float(query[1])],
        "mode": "markers",
        "name": "query q",
        "marker": {"symbol": "star", "size": 20, "color": "#e8590c"},
        "hovertemplate": "query (%{x:.2f}, %{y:.2f})<extra></extra>",
    }
    lim = max(PLANE_LIMIT, float(np.abs(keys).max()) + 0.3)
    layout = {
        "title": {"text": "Keys (size = weight) and the query: click to move it"},
        "height": 430,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "clickmode": "event+select",
        "dragmode": False,
        "xaxis": {"range": [-lim, lim], "title": {"text": "key / query dimension 1"}},
        "yaxis": {
            "range": [-lim, lim],
            "title": {"text": "key / query dimension 2"},
            "scaleanchor": "x",
        },
    }
    return fast_figure([click_grid, key_dots, star], layout)


def temperature_figure(
    temperatures: np.ndarray, sweep: np.ndarray, names: list[str], current: float
) -> go.Figure:
    """Each key's weight as the temperature goes from hard select (left) to the mean (right)."""
    fig = line_chart(
        temperatures,
        {n: sweep[:, i] for i, n in enumerate(names)},
        "Weights as temperature T changes (T → 0: hard select; T → ∞: plain mean)",
        "temperature T (log scale)",
        "weight α",
        log_x=True,
    )
    guide = {"type": "line", "line": {"dash": "dot", "color": "#e8590c"}}
    shapes = [  # the current T (x in data units, y across the plot) and the uniform weight 1/m
        {**guide, "xref": "x", "yref": "paper", "x0": current, "x1": current, "y0": 0, "y1": 1},
        {
            **guide,
            "xref": "paper",
            "yref": "y",
            "x0": 0,
            "x1": 1,
            "y0": 1 / len(names),
            "y1": 1 / len(names),
            "line": {"dash": "dash", "color": "grey"},
        },
    ]
    notes = [
        {
            "x": float(np.log10(current)),
            "y": 1.02,
            "yref": "paper",
            "text": f"T = {current:g}",
            "showarrow": False,
        },
        {
            "x": 1.0,
            "xref": "paper",
            "y": 1 / len(names),
            "text": "1/m",
            "showarrow": False,
            "xanchor": "left",
        },
    ]
    return fast_figure(
        list(fig.data), {**fig.layout.to_plotly_json(), "shapes": shapes, "annotations": notes}
    )
