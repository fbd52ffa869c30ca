"""Figures of the text page: per-head heatmap grid, positional encodings, the temperature rows,
one query row, outputs, and the saturation curve."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import fast_figure, heatmap, line_chart, unique_labels

HEAD_COLORS = [
    "#1c7ed6",
    "#e8590c",
    "#2f9e44",
    "#ae3ec9",
    "#f08c00",
    "#0c8599",
    "#e03131",
    "#5c940d",
]
GRID_MAX = 128  # larger maps are block-averaged in the small-multiples grid
HEAD_VIEW_MAX = 64


def shown(tokens: list[str]) -> list[str]:
    """Tokens as labels: HTML-escaped (Plotly renders tags), spaces visible, repeats distinct."""
    return unique_labels(
        [html.escape(t.replace(" ", "␣").replace("\n", "⏎")) or "∅" for t in tokens]
    )


def block_average(m: np.ndarray, size: int) -> np.ndarray:
    """Block-average a (T, T) map down to at most size × size."""
    t = m.shape[0]
    if t <= size:
        return m
    edges = np.linspace(0, t, size + 1).astype(int)
    rows = np.add.reduceat(m, edges[:-1], axis=0) / np.diff(edges)[:, None]
    return np.add.reduceat(rows, edges[:-1], axis=1) / np.diff(edges)[None, :]


def heads_grid(
    weights: np.ndarray,
    tokens: list[str],
    columns: int = 4,
    pool: int = GRID_MAX,
    names: list[str] | None = None,
    cell_height: int = 260,
) -> go.Figure:
    """Every head's (T, T) map as small multiples sharing one colour scale (0 to 1); maps larger
    than `pool` are block-averaged (so 72 heads × 512 tokens still draw quickly)."""
    h, t = weights.shape[0], weights.shape[1]
    rows = (h + columns - 1) // columns
    pooled = t > pool
    labels = shown(tokens) if not pooled else None
    names = names or [f"head {i}" for i in range(h)]
    data, layout = (
        [],
        {"height": cell_height * rows + 60, "margin": {"l": 10, "r": 10, "t": 60, "b": 10}},
    )
    gap = 0.04 if columns <= 4 else 0.01
    for i in range(h):
        r, c = divmod(i, columns)
        n = "" if i == 0 else str(i + 1)
        x0 = c / columns + gap / 2
        y1 = 1 - r / rows - gap
        z = block_average(weights[i], pool).astype(np.float32)
        trace = {
            "type": "heatmap",
            "z": z,
            "zmin": 0,
            "zmax": 1,
            "colorscale": "Blues",
            "showscale": i == 0,
            "xaxis": f"x{n}",
            "yaxis": f"y{n}",
            "hovertemplate": f"{names[i]}<br>query %{{y}}<br>key %{{x}}<br>weight %{{z:.3f}}<extra></extra>",
        }
        if labels is not None:
            trace |= {"x": labels, "y": labels}
        data.append(trace)
        layout[f"xaxis{n}"] = {
            "domain": [round(x0, 4), round(x0 + 1 / columns - gap, 4)],
            "showticklabels": t <= 24,
            "title": {"text": f"{names[i]}: key" if columns <= 4 else ""},
        }
        layout[f"yaxis{n}"] = {
            "domain": [round(max(0.0, y1 - 1 / rows + gap), 4), round(y1, 4)],
            "autorange": "reversed",
            "showticklabels": t <= 24,
        }
    title = "Attention weights per head (row: query token, column: key token)"
    layout["title"] = {
        "text": title + (f"; {t} tokens shown block-averaged to {pool}" if pooled else "")
    }
    return fast_figure(data, layout)


def positional_figure(table: np.ndarray, rope: bool = False) -> go.Figure:
    if rope:
        title = "RoPE: cos and sin of the rotation angle pos·θ_i, position (row) × head dimension"
    else:
        title = "Positional encoding added to each embedding: position (row) × dimension"
    return heatmap(
        table,
        title=title,
        x_title="dimension",
        y_title="position",
        colorscale="RdBu_r",
        zmin=-1.0,
        zmax=1.0,
    )


def sinusoid_curves(table: np.ndarray, dims: tuple[int, ...] = (0, 1, 4, 10)) -> go.Figure:
    dims = tuple(d for d in dims if d < table.shape[1])
    return line_chart(
        np.arange(table.shape[0]),
        {f"dimension {d}": table[:, d] for d in dims},
        "A few dimensions along the positions (fast waves first, slow waves later)",
        "position",
        "value",
    )


def saturation_figure(curve: dict[str, np.ndarray], d_k: int | None = None) -> go.Figure:
    fig = line_chart(
        curve["d_k"],
        {
            "with ÷√d_k": curve["scaled"],
            "without scaling": curve["unscaled"],
            "uniform (maximum)": curve["uniform"],
        },
        "Entropy of attention rows vs d_k for random q, k (16 keys)",
        "d_k (log scale)",
        "entropy (nats)",
        log_x=True,
    )
    if d_k is not None:  # the page's current d_k = d_model / heads
        fig.layout.shapes = [
            {
                "type": "line",
                "x0": d_k,
                "x1": d_k,
                "yref": "paper",
                "y0": 0,
                "y1": 1,
                "line": {"dash": "dot", "color": "#868e96"},
            }
        ]
        fig.layout.annotations = [
            {
                "x": np.log10(d_k),
                "yref": "paper",
                "y": 1,
                "text": f"this page: d_k = {d_k}",
                "showarrow": False,
                "yanchor": "bottom",
            }
        ]
    return fig


def temperature_figure(
    rows: np.ndarray, temperatures: list[float], tokens: list[str], query: str
) -> go.Figure:
    """One query row (columns: keys) at several temperatures (rows)."""
    fig = heatmap(
        rows,
        x_labels=shown(tokens),
        y_labels=[f"τ = {t:g}" for t in temperatures],
        title=f"Where '{query}' looks as the temperature τ grows: softmax(score / τ)",
        x_title="key token",
        y_title="temperature",
        zmin=0.0,
        zmax=1.0,
    )
    fig.layout.xaxis.showticklabels = len(tokens) <= 48
    return fig


def weights_map(weights: np.ndarray, tokens: list[str], title: str) -> go.Figure:
    """One (T, T) attention map with token labels, on the fixed 0-to-1 colour scale."""
    labels = shown(tokens)
    return heatmap(weights, labels, labels, title=title, zmin=0.0, zmax=1.0)


def vectors_map(matrix: np.ndarray, tokens: list[str], title: str) -> go.Figure:
    """One vector per token (rows) over its dimensions (columns), on a diverging scale."""
    return heatmap(matrix, None, shown(tokens), title, "dimension", "token", colorscale="RdBu_r")
