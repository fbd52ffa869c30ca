"""Figures of the Attention at scale page's FlashAttention and KV-cache parts, from plain arrays:
the N×N score grid cut into tiles (tiles done shaded, the current one outlined), the running
row max and row sum after a tile beside their final values, each query row's distance to
standard attention (log scale), and decoding's work and cache memory with and without the cache.

The views by the page's values (which run the engine) are
attnviz/topics/attention_at_scale/flash_views.py: figures take arrays, never engine types
(tests/engine/test_layering.py). Every figure is built for a page column (titles wrapped at
NARROW_TITLE, legends under the plot), so it reads at 390 px wide and lecture mode's scale_fonts can
enlarge it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import (
    BAR_COLOR,
    DIVERGING,
    HIGHLIGHT_COLOR,
    base_layout,
    fast_figure,
)
from attnviz.figures.fonts import NARROW_TITLE

Rect = tuple[int, int, int, int]  # query rows [r0, r1), key rows [c0, c1)
FINAL_COLOR = "#555"
ERROR_FLOOR = 1e-9  # an exact row is drawn at this height of the log axis
LEGEND = {"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0}


def _rect(rect: Rect, **style) -> dict:
    r0, r1, c0, c1 = rect
    return {"type": "rect", "x0": c0 - 0.5, "x1": c1 - 0.5, "y0": r0 - 0.5, "y1": r1 - 0.5} | style


def _grid_lines(n: int, block_r: int, block_c: int) -> list[dict]:
    line = {"color": "rgba(0,0,0,0.35)", "width": 1}
    cols = [
        {"type": "line", "x0": c - 0.5, "x1": c - 0.5, "y0": -0.5, "y1": n - 0.5, "line": line}
        for c in range(block_c, n, block_c)
    ]
    rows = [
        {"type": "line", "y0": r - 0.5, "y1": r - 0.5, "x0": -0.5, "x1": n - 0.5, "line": line}
        for r in range(block_r, n, block_r)
    ]
    return cols + rows


def tiles_figure(
    scores: np.ndarray,
    block_r: int,
    block_c: int,
    done: Sequence[Rect],
    current: Rect | None,
    title: str,
) -> go.Figure:
    """The scores S (N, N) of the tiles computed so far (the rest blank), the tile grid, the
    tiles done before this one shaded and the current one outlined in orange."""
    n = scores.shape[0]
    z = np.full((n, n), np.nan, dtype=np.float32)
    for r0, r1, c0, c1 in [*done, *([current] if current else [])]:
        z[r0:r1, c0:c1] = scores[r0:r1, c0:c1]
    bound = float(np.abs(scores).max()) or 1.0
    trace = {
        "type": "heatmap",
        "z": z,
        "x": np.arange(n),
        "y": np.arange(n),
        "zmin": -bound,
        "zmax": bound,
        "colorscale": DIVERGING,
        "colorbar": {"thickness": 12, "title": {"text": "s"}},
        "hovertemplate": "query %{y}<br>key %{x}<br>s = %{z:.3f}<extra></extra>",
    }
    shade = {"fillcolor": "rgba(90,90,90,0.35)", "line": {"width": 0}}
    shapes = _grid_lines(n, block_r, block_c) + [_rect(rect, **shade) for rect in done]
    if current:
        shapes.append(_rect(current, line={"color": HIGHLIGHT_COLOR, "width": 4}))
    layout = base_layout(title, 420, NARROW_TITLE)
    layout["xaxis"] = {"title": {"text": "key j"}, "range": [-0.5, n - 0.5], "constrain": "domain"}
    layout["yaxis"] = {
        "title": {"text": "query i"},
        "range": [n - 0.5, -0.5],  # row 0 at the top
        "scaleanchor": "x",
        "constrain": "domain",
    }
    layout["shapes"] = shapes
    return fast_figure([trace], layout)


def _series(y: np.ndarray, name: str, axis: str, final: bool) -> dict:
    """Dots (running values) or grey dashes (final values), one per query row."""
    ys = np.where(np.isfinite(y), y, np.nan).astype(np.float32)  # −inf: no key seen yet
    marker = (
        {"symbol": "line-ew", "size": 16, "line": {"color": FINAL_COLOR, "width": 3}}
        if final
        else {"size": 8, "color": BAR_COLOR}
    )
    return {
        "type": "scatter",
        "x": np.arange(len(ys)),
        "y": ys,
        "name": name,
        "mode": "markers",
        "marker": marker,
        "xaxis": "x",
        "yaxis": axis,
        "showlegend": axis == "y",
        "hovertemplate": f"{name}<br>query %{{x}}: %{{y:.4f}}<extra></extra>",
    }


def running_figure(
    m: np.ndarray,
    ell: np.ndarray,
    m_final: np.ndarray,
    ell_final: np.ndarray,
    rows: tuple[int, int] | None,
    title: str,
) -> go.Figure:
    """Two panels over the query rows: the running max m (top) and the running sum ℓ of
    exp(s − m) (bottom) after this tile as dots, their final values (the whole row at once) as
    grey dashes; the current tile's rows shaded."""
    traces = [
        _series(m_final, "whole row at once", "y", True),
        _series(m, "after this tile", "y", False),
        _series(ell_final, "whole row at once", "y2", True),
        _series(ell, "after this tile", "y2", False),
    ]
    layout = base_layout(title, 440, NARROW_TITLE)
    n = len(m)
    layout["xaxis"] = {"title": {"text": "query row i"}, "anchor": "y2", "range": [-0.7, n - 0.3]}
    layout["yaxis"] = {"domain": [0.56, 1], "title": {"text": "running max m"}}
    layout["yaxis2"] = {"domain": [0, 0.44], "title": {"text": "running sum ℓ"}}
    layout["legend"] = LEGEND
    layout["margin"]["b"] = 70
    if rows is not None:
        band = {"fillcolor": "rgba(232,89,12,0.15)", "line": {"width": 0}, "layer": "below"}
        box = {"type": "rect", "xref": "x", "x0": rows[0] - 0.5, "x1": rows[1] - 0.5, "y0": 0}
        layout["shapes"] = [box | {"yref": f"{ax} domain", "y1": 1} | band for ax in ("y", "y2")]
    return fast_figure(traces, layout)


def error_figure(row_error: np.ndarray, rows: tuple[int, int] | None, title: str) -> go.Figure:
    """Each query row's max |O_tiled − O_standard| as a bar on a log axis (exact rows drawn at
    ERROR_FLOOR); the current tile's rows in orange."""
    err = np.asarray(row_error, dtype=np.float64)
    colors = [BAR_COLOR] * len(err)
    if rows is not None:
        colors[rows[0] : rows[1]] = [HIGHLIGHT_COLOR] * (rows[1] - rows[0])
    trace = {
        "type": "bar",
        "x": np.arange(len(err)),
        "y": np.maximum(err, ERROR_FLOOR).astype(np.float32),
        "customdata": err.astype(np.float32),
        "marker": {"color": colors},
        "hovertemplate": "query %{x}<br>max |O − O_std| = %{customdata:.2e}<extra></extra>",
    }
    layout = base_layout(title, 340, NARROW_TITLE)
    layout["xaxis"] = {"title": {"text": "query row i"}}
    layout["yaxis"] = {
        "title": {"text": "max |difference|"},
        "type": "log",
        "exponentformat": "power",
    }
    return fast_figure([trace], layout)


def _line(x: np.ndarray, y: np.ndarray, name: str, color: str, bold: bool) -> dict:
    return {
        "type": "scatter",
        "x": np.asarray(x, dtype=np.float32),
        "y": np.asarray(y, dtype=np.float64),
        "name": name,
        "mode": "lines+markers",
        "marker": {"size": 6 if bold else 4, "color": color},
        "line": {"color": color, "width": 3.5 if bold else 1.5, "dash": "solid" if bold else "dot"},
        "hovertemplate": f"{name}<br>%{{x}} tokens: %{{y:,.0f}}<extra></extra>",
    }


def kv_work_figure(
    tokens: np.ndarray,
    work_full: np.ndarray,
    work_cached: np.ndarray,
    use_cache: bool,
    title: str,
) -> go.Figure:
    """Multiply-adds against tokens in context, without (orange) and with (blue) the cache; the
    path in use drawn bold."""
    traces = [
        _line(tokens, work_full, "without cache", HIGHLIGHT_COLOR, not use_cache),
        _line(tokens, work_cached, "with KV cache", BAR_COLOR, use_cache),
    ]
    layout = base_layout(title, 340, NARROW_TITLE)
    layout["xaxis"] = {"title": {"text": "tokens in context t"}, "rangemode": "tozero"}
    layout["yaxis"] = {"title": {"text": "multiply-adds"}, "rangemode": "tozero"}
    # inside, top left (both curves start low at the left): below the plot it met the x axis's
    # title in lecture mode
    layout["legend"] = LEGEND | {"x": 0.02, "y": 0.98, "xanchor": "left", "yanchor": "top"}
    return fast_figure(traces, layout)


def kv_memory_figure(tokens: np.ndarray, cache_bytes: np.ndarray, title: str) -> go.Figure:
    """The KV cache's size (KiB) after each decoded token."""
    kib = np.asarray(cache_bytes, dtype=np.float64) / 1024
    trace = {
        "type": "bar",
        "x": np.asarray(tokens, dtype=np.float32),
        "y": kib.astype(np.float32),
        "marker": {"color": BAR_COLOR},
        "hovertemplate": "%{x} tokens: %{y:.1f} KiB<extra></extra>",
    }
    layout = base_layout(title, 320, NARROW_TITLE)
    layout["xaxis"] = {"title": {"text": "tokens in context t"}}
    layout["yaxis"] = {"title": {"text": "KiB"}, "rangemode": "tozero"}
    return fast_figure([trace], layout)
