"""Views of long attention maps (hundreds of tokens) that keep their structure visible.

Mean-pooling a (T, T) map whose rows each put their weight on a few keys averages those peaks
away (a 500-token map pooled to 128 reads near white). Instead:
- `max_pool`: each block's largest weight, so every sharp peak survives the overview;
- `top_k_rows` / `top_k_figure`: for every query row, its k largest weights and their keys;
- `window` / `window_figure`: rows a..b, columns c..d at full resolution with token labels."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import format_value
from attnviz.figures.base import fast_figure, heatmap_spec


def _label(token: str) -> str:
    """A raw token as label text: HTML-escaped (Plotly renders tags), spaces visible."""
    return html.escape(str(token).replace(" ", "␣").replace("\n", "⏎"), quote=False) or "∅"


def block_edges(t: int, size: int) -> np.ndarray:
    """The size + 1 edges splitting 0..t into `size` near-equal blocks (t ≤ size: one per token)."""
    return np.linspace(0, t, min(t, size) + 1).astype(int)


def max_pool(m: np.ndarray, size: int) -> np.ndarray:
    """Max-pool a (T, T) map down to at most size × size: each cell is its block's largest."""
    t = m.shape[0]
    if t <= size:
        return m
    starts = block_edges(t, size)[:-1]
    rows = np.maximum.reduceat(m, starts, axis=0)
    return np.maximum.reduceat(rows, starts, axis=1)


def pool_labels(t: int, size: int) -> list[str]:
    """Category labels of pooled blocks: token positions "0–3", "4–7", ... (one per block)."""
    edges = block_edges(t, size)
    return [
        f"{a}–{b - 1}" if b - a > 1 else str(a) for a, b in zip(edges[:-1], edges[1:], strict=True)
    ]


def top_k_rows(m: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """For each query row of a (T, S) map, its k largest weights, largest first, and their key
    indices: (values (T, k), indices (T, k)); k is clipped to S. Ties keep the lower index."""
    k = max(1, min(int(k), m.shape[1]))
    order = np.argsort(-m, axis=1, kind="stable")[:, :k]  # (T, k)
    return np.take_along_axis(m, order, axis=1), order


def window(
    m: np.ndarray, rows: tuple[int, int], cols: tuple[int, int]
) -> tuple[np.ndarray, slice, slice]:
    """The block m[a:b, c:d] of a (T, S) map with the bounds clipped to the map and ordered;
    returns (block, row slice, column slice)."""
    a, b = sorted(max(0, min(int(v), m.shape[0])) for v in rows)
    c, d = sorted(max(0, min(int(v), m.shape[1])) for v in cols)
    rs, cs = slice(a, max(b, a + 1)), slice(c, max(d, c + 1))
    return m[rs, cs], rs, cs


def top_k_figure(weights: np.ndarray, tokens: list[str], k: int = 3, title: str = "") -> go.Figure:
    """Every query's k largest weights as dots at (key position, query position), darker and
    larger for larger weights: the structure of a long map (diagonals, sinks) at one glance."""
    values, keys = top_k_rows(np.asarray(weights, dtype=np.float32), k)  # (T, k) each
    t = values.shape[0]
    queries = np.repeat(np.arange(t), values.shape[1])
    v = values.ravel().astype(np.float32)
    names = [_label(s) for s in tokens]  # raw tokens in, escaped here
    words = [[names[q], names[j]] for q, j in zip(queries, keys.ravel(), strict=True)]
    trace = {
        "type": "scatter",
        "x": keys.ravel().astype(np.int32),
        "y": queries.astype(np.int32),
        "mode": "markers",
        "customdata": words,
        "text": [format_value(w, 3) for w in v],
        "marker": {
            "size": (3 + 9 * v).astype(np.float32),
            "color": v,
            "cmin": 0.0,
            "cmax": 1.0,
            "colorscale": "Blues",
            "showscale": True,
            "colorbar": {"title": {"text": "weight"}},
        },
        "hovertemplate": "query %{y} '%{customdata[0]}'<br>key %{x} '%{customdata[1]}'"
        "<br>weight %{text}<extra></extra>",
    }
    layout = {
        "title": {"text": title or f"The {values.shape[1]} largest weights of every query row"},
        "height": 560,
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        "xaxis": {"title": {"text": "key position"}, "range": [-1, weights.shape[1]]},
        "yaxis": {
            "title": {"text": "query position"},
            "range": [t, -1],
            "scaleanchor": "x",
        },
    }
    return fast_figure([trace], layout)


def window_figure(
    weights: np.ndarray,
    tokens: list[str],
    rows: tuple[int, int],
    cols: tuple[int, int],
    title: str = "",
) -> go.Figure:
    """Rows a..b (queries) and columns c..d (keys) of a (T, T) map at full resolution, labelled
    with their tokens (positions added so repeated tokens stay apart) on the 0-to-1 scale."""
    block, rs, cs = window(np.asarray(weights, dtype=np.float32), rows, cols)
    ys = [f"{i}:{_label(tokens[i])}" for i in range(rs.start, rs.stop)]  # raw tokens in
    xs = [f"{j}:{_label(tokens[j])}" for j in range(cs.start, cs.stop)]
    head = title or "Window"
    text = f"{head}: queries {rs.start}–{rs.stop - 1}, keys {cs.start}–{cs.stop - 1}"
    trace, layout = heatmap_spec(block, xs, ys, text, zmin=0.0, zmax=1.0)
    layout["height"] = max(300, min(900, 120 + 14 * len(ys)))
    return fast_figure([trace], layout)
