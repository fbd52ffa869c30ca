"""Figures of the pretrained-model explorer: model view, query/key view, Q–K projection."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.plots import bar_chart, fast_figure, heatmap
from attnviz.plots_text import heads_grid, shown

MODEL_VIEW_POOL = 48


def model_view(attentions: np.ndarray, tokens: list[str]) -> go.Figure:
    """All layers × heads as small maps (rows: layers); large inputs are block-averaged."""
    layers, heads = attentions.shape[:2]
    names = [f"layer {lay}, head {h}" for lay in range(layers) for h in range(heads)]
    fig = heads_grid(
        attentions.reshape(layers * heads, *attentions.shape[2:]),
        tokens,
        columns=heads,
        pool=MODEL_VIEW_POOL,
        names=names,
        cell_height=110,
    )
    note = (
        f"; {attentions.shape[-1]} tokens block-averaged to {MODEL_VIEW_POOL}"
        if attentions.shape[-1] > MODEL_VIEW_POOL
        else ""
    )
    fig.layout.title.text = f"Model view: {layers} layers (rows) × {heads} heads (columns){note}"
    return fig


def qk_products(q: np.ndarray, keys: np.ndarray, tokens: list[str], query_token: str) -> go.Figure:
    """q ∘ k_j for every key j: (T, d_head); row sums are the dot products q·k_j."""
    return heatmap(
        q[None, :] * keys,
        x_labels=[str(i) for i in range(q.shape[0])],
        y_labels=shown(tokens),
        title=f"q ∘ k: elementwise products for query '{query_token}' (row sums = q·k)",
        x_title="dimension of the head",
        y_title="key token",
        colorscale="RdBu_r",
    )


def qk_bars(q: np.ndarray, keys: np.ndarray, tokens: list[str]) -> tuple[go.Figure, go.Figure]:
    """q·k_j/√d per key, and its softmax (which equals the model's attention row)."""
    scores = keys @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    labels = shown(tokens)
    return (
        bar_chart(scores, labels, "q·k / √d_head for each key", "score"),
        bar_chart(weights, labels, "softmax: the attention weights", "weight", y_range=(0, 1.1)),
    )


def qk_scatter(points: np.ndarray, tokens: list[str], method: str) -> go.Figure:
    """Joint 2-D projection: queries (circles) and keys (triangles), coloured by position."""
    t = len(tokens)
    labels = shown(tokens)
    pos = np.arange(t, dtype=np.float32)
    traces = []
    for kind, rows, symbol in (
        ("query", slice(0, t), "circle"),
        ("key", slice(t, 2 * t), "triangle-up"),
    ):
        traces.append(
            {
                "type": "scatter",
                "x": points[rows, 0].astype(np.float32),
                "y": points[rows, 1].astype(np.float32),
                "mode": "markers",
                "name": f"{kind}s",
                "text": labels,
                "customdata": pos,
                "marker": {
                    "symbol": symbol,
                    "size": 10,
                    "color": pos,
                    "colorscale": "Viridis",
                    "showscale": kind == "query",
                    "colorbar": {"title": {"text": "position"}},
                    "line": {"width": 1, "color": "#fa5252" if kind == "query" else "#1c7ed6"},
                },
                "hovertemplate": f"{kind} of '%{{text}}' (position %{{customdata}})<extra></extra>",
            }
        )
    layout = {
        "title": {"text": f"Queries and keys of one head, projected together ({method.upper()})"},
        "height": 460,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "xaxis": {"title": {"text": "component 1"}},
        "yaxis": {"title": {"text": "component 2"}},
        "legend": {"orientation": "h", "y": -0.15},
    }
    return fast_figure(traces, layout)
