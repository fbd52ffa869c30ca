"""Figures of the soft-select page: the key plane with the query, and weights vs temperature."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.plots import line_chart

PLANE_LIMIT = 2.0
GRID_STEPS = 41  # invisible click targets, 0.1 apart


def key_plane(
    keys: np.ndarray, names: list[str], query: np.ndarray, weights: np.ndarray
) -> go.Figure:
    """Keys as dots sized by their weight, the query as a star; click anywhere to move the query."""
    grid = np.linspace(-PLANE_LIMIT, PLANE_LIMIT, GRID_STEPS, dtype=np.float32)
    gx, gy = np.meshgrid(grid, grid)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(  # invisible but clickable: a selection returns its coordinates
            x=gx.ravel(),
            y=gy.ravel(),
            mode="markers",
            marker={"size": 9, "opacity": 0},
            name="click to move the query",
            hovertemplate="move query to (%{x:.1f}, %{y:.1f})<extra></extra>",
            showlegend=False,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=keys[:, 0].astype(np.float32),
            y=keys[:, 1].astype(np.float32),
            mode="markers+text",
            text=names,
            textposition="top center",
            name="keys",
            marker={"size": (12 + 40 * weights).astype(np.float32), "color": "#3b5bdb"},
            customdata=weights.astype(np.float32),
            hovertemplate="%{text}<br>key (%{x:.2f}, %{y:.2f})<br>weight %{customdata:.3f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[float(query[0])],
            y=[float(query[1])],
            mode="markers",
            name="query q",
            marker={"symbol": "star", "size": 20, "color": "#e8590c"},
            hovertemplate="query (%{x:.2f}, %{y:.2f})<extra></extra>",
        )
    )
    lim = max(PLANE_LIMIT, float(np.abs(keys).max()) + 0.3)
    fig.update_xaxes(range=[-lim, lim], title="key / query dimension 1", zeroline=True)
    fig.update_yaxes(range=[-lim, lim], title="key / query dimension 2", scaleanchor="x")
    fig.update_layout(
        title="Keys (size = weight) and the query: click to move it",
        height=430,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        clickmode="event+select",
        dragmode=False,
    )
    return fig


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
    fig.add_vline(x=current, line_dash="dot", annotation_text=f"T = {current:g}")
    fig.add_hline(y=1 / len(names), line_dash="dash", line_color="grey", annotation_text="1/m")
    return fig
