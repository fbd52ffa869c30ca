"""Figures of the pretrained-model explorer: model view, query/key view, Q–K projection.

A causal model's maps arrive with their masked future as NaN (analysis.blank_future): drawn
blank, and pooled so that a block keeps the largest weight it can see (blank only when it lies
wholly in the future)."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from attnviz.figures.base import bar_chart, fast_figure, heatmap_spec
from attnviz.figures.fonts import NARROW_TITLE, titled
from attnviz.figures.long_maps import max_pool, pool_labels
from attnviz.figures.text import block_average, shown

MODEL_VIEW_POOL = 32  # cells per block side: a block is ~80 px wide on a projector
LONG_MAP_CELLS = 256  # a map of more tokens is max-pooled to this side (~2 px a cell at 480 px)
PRINTED_BARS = 32  # a bar chart of more keys prints no value over each bar (the hover has it):
# 64 values over 10-px bars are unreadable, and the browser lays out each text (issue 26)
MAP_HEIGHT = 450  # px: Plotly's default, set explicitly so lecture mode grows it for the labels


def token_map(
    matrix: np.ndarray,
    labels: list[str],
    title: str,
    zmin: float | None = 0.0,
    zmax: float | None = 1.0,
    colorscale: str = "Blues",
) -> go.Figure:
    """A (T, T) map over token labels (already `shown`) with an explicit height, so lecture
    mode's larger tick labels make the figure taller instead of printing over each other. A map
    of weights longer than LONG_MAP_CELLS is max-pooled to that side (each cell its block's
    largest weight, so sharp peaks stay; a quarter of the data to send at 512 tokens)."""
    pooled = len(labels) > LONG_MAP_CELLS and zmin is not None and zmin >= 0
    if pooled:
        matrix, labels = seen_max_pool(matrix, LONG_MAP_CELLS), block_labels(labels, LONG_MAP_CELLS)
    trace, layout = heatmap_spec(
        matrix, labels, labels, title, zmin=zmin, zmax=zmax, colorscale=colorscale
    )
    if pooled:  # a longer title: wrapped, with the top margin grown for its lines
        layout = titled(layout, f"{title} (max-pooled to {LONG_MAP_CELLS}²)", NARROW_TITLE)
    layout["height"] = max(layout.get("height") or 0, MAP_HEIGHT)
    return fast_figure([trace], settle_margins(layout, right=90))


SETTLED_MIN = 33  # an axis of more token labels gets its margins here (settle_margins)
GLYPH_EM = 0.65  # a generous average glyph width / font size (axes.CHAR_EM is 0.6)


def _extent(axis: dict, title_px: int) -> int | None:
    """px the labels of a token axis (and its title) need beside the plot: None for an axis of
    no categories (numbers)."""
    labels = axis.get("categoryarray")
    if labels is None:
        return None
    font = (axis.get("tickfont") or {}).get("size") or 12
    longest = max((len(html.unescape(str(s))) for s in labels), default=1)
    title = (axis.get("title") or {}).get("text")
    return int(longest * GLYPH_EM * font) + 56 + (title_px if title else 0)


def settle_margins(layout: dict, right: int) -> dict:
    """A token map's or bar chart's layout with margins computed from its labels and automargin off
    on its token axes, once one holds SETTLED_MIN tokens or more (issue 26): Plotly's automargin
    measured every label, grew the margins and drew the figure again, ~70 ms of a new 64-token
    sentence over the page's four such figures. The page turns automargin back on in lecture mode
    (`free_margins`), whose larger fonts these margins were not computed for."""
    x, y = layout.get("xaxis") or {}, layout.get("yaxis") or {}
    if not any(len(a.get("categoryarray") or ()) >= SETTLED_MIN for a in (x, y)):
        return layout
    top = (layout.get("margin") or {}).get("t") or 50
    left, bottom = _extent(y, 8), _extent(x, 0)
    layout["margin"] = {"l": left or 72, "r": right, "b": bottom or 72, "t": top}
    for axis in (x, y):  # a numeric axis (a few short ticks) keeps automargin: it places its title
        axis["automargin"] = axis.get("categoryarray") is None
    layout["xaxis"], layout["yaxis"] = x, y
    return layout


def free_margins(fig: go.Figure) -> go.Figure:
    """A copy of `fig` with Plotly's automargin back on (lecture mode's larger labels)."""
    fig = go.Figure(fig)
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig


def seen_max_pool(m: np.ndarray, size: int) -> np.ndarray:
    """long_maps.max_pool that skips NaN cells (a causal map's blank future): a block of only
    NaN stays NaN; any other block is the largest weight in it."""
    if not np.isnan(m).any():
        return max_pool(m, size)
    pooled = max_pool(np.where(np.isnan(m), -np.inf, m), size)
    return np.where(np.isneginf(pooled), np.nan, pooled)


def block_labels(labels: list[str], size: int) -> list[str]:
    """One distinct label per pooled block: its first token and its positions ("cat 4–5")."""
    edges = pool_labels(len(labels), size)
    starts = [int(e.split("–")[0]) for e in edges]
    return [f"{labels[a]} {e}" for a, e in zip(starts, edges, strict=True)]


def _tile(attentions: np.ndarray, n: int, reduce: str) -> np.ndarray:
    """(L, H, T, T) maps pooled to (n, n) and tiled with one NaN line between blocks."""
    layers, heads, step = attentions.shape[0], attentions.shape[1], n + 1
    tiled = np.full((layers * step - 1, heads * step - 1), np.nan, dtype=np.float32)
    squeeze = seen_max_pool if reduce == "max" else block_average
    for lay in range(layers):
        for h in range(heads):
            block = squeeze(attentions[lay, h], MODEL_VIEW_POOL)  # (n, n)
            tiled[lay * step : lay * step + n, h * step : h * step + n] = block
    return tiled


def _tile_labels(
    names: list[str], heads: Sequence[int], layers: Sequence[int]
) -> tuple[list[str], list[str]]:
    """Distinct category labels of the tiled map's columns and rows (gap lines get "h|", "l—"),
    named by the heads' and layers' own numbers."""
    n, step = len(names), len(names) + 1
    x = [f"head {h} · key {names[j]}" if j < n else f"{h}|" for h in heads for j in range(step)]
    y = [f"layer {k} · query {names[i]}" if i < n else f"{k}—" for k in layers for i in range(step)]
    x, y = x[:-1], y[:-1]
    return x, y


def model_view(
    attentions: np.ndarray,
    tokens: list[str],
    reduce: str = "max",
    compact: bool = False,
    numbers: tuple[Sequence[int], Sequence[int]] | None = None,
) -> go.Figure:
    """All layers × heads in one heatmap: block (l, h) is that head's (T, T) map, rows are
    layers, blank lines between blocks; inputs longer than MODEL_VIEW_POOL are pooled per block
    (`reduce` "max": its largest weight, so sharp weights stay visible; "mean": averaged). One
    trace on one pair of categorical axes, so 72 maps of 512 tokens draw as fast as one image.
    `compact`: the weights sent as bytes (see `compact_weights`; a quarter of the float32 cells).
    `numbers`: the layers' and heads' own numbers when `attentions` is a selection of them."""
    layers, heads, t = attentions.shape[0], attentions.shape[1], attentions.shape[-1]
    layer_ids, head_ids = numbers or (range(layers), range(heads))
    pooled = t > MODEL_VIEW_POOL
    n = min(t, MODEL_VIEW_POOL)
    tiled = _tile(attentions, n, reduce)  # (layers·(n+1) − 1, heads·(n+1) − 1)
    names = [f"tokens {s}" for s in pool_labels(t, n)] if pooled else shown(tokens)
    x, y = _tile_labels(names, head_ids, layer_ids)
    trace = {
        "type": "heatmap",
        "z": tiled,
        "x": x,
        "y": y,
        "zmin": 0,
        "zmax": 1,
        "colorscale": "Blues",
        "hoverongaps": False,
        "hovertemplate": "%{y}<br>%{x}<br>weight %{z:.3f}<extra></extra>",
    }
    if compact:
        compact_weights(trace)
    how = "max-pooled" if reduce == "max" else "block-averaged"
    layout = _model_view_layout(x, y, (layer_ids, head_ids), n)
    named = f"{layers} layer{'s' * (layers != 1)} ×\u00a0{heads}\u00a0head{'s' * (heads != 1)}"
    title = f"Model view: {named}"  # a break keeps "× 12 heads" whole
    if pooled:  # a long title wraps for a phone; the short one stays one line on a projector
        titled(layout, f"{title}; {t} tokens {how} to {n} blocks", NARROW_TITLE)
    else:
        titled(layout, title)
    return fast_figure([trace], layout)


MODEL_VIEW_LAYER_PX = 40  # a layer's row of head maps: about as tall as a map is wide beside the
# sidebar at 1280 px (12 heads in 656 px), so 6 layers fit a laptop's first screen under the
# sentence


def _model_view_layout(
    x: list[str], y: list[str], numbers: tuple[Sequence[int], Sequence[int]], n: int
) -> dict:
    """The model view's layout, untitled: a tick per head (x) and layer (y) mid-block, named by
    `numbers` (the layers' and the heads' own)."""
    (layer_ids, head_ids), step, centre = numbers, n + 1, n // 2  # a block, one blank line
    layers, heads = len(layer_ids), len(head_ids)
    return {
        "height": MODEL_VIEW_LAYER_PX * layers + 136,  # 136: the margins' top and bottom
        # the margins Plotly's automargin reaches at the base font (layer labels, the head axis,
        # the colour bar), given up front: the browser draws the figure once instead of twice
        "margin": {"l": 64, "r": 100, "t": 60, "b": 76},  # r: the colour bar's 0.25 … 0.75
        "xaxis": {  # head numbers over an axis title below the maps ("head 11" × 12 do not fit
            # a phone; ticks on top would sit on the title, which Plotly places by its margin)
            "type": "category",
            "tickvals": [x[h * step + centre] for h in range(heads)],
            "ticktext": [str(h) for h in head_ids],
            "tickangle": 0,
            "title": {"text": "head"},
            "side": "bottom",
            "showgrid": False,
            "automargin": True,
        },
        "yaxis": {
            "type": "category",
            "tickvals": [y[k * step + centre] for k in range(layers)],
            "ticktext": [f"layer {k}" for k in layer_ids],
            "autorange": "reversed",
            "showgrid": False,
            "automargin": True,
        },
    }


WEIGHT_STEPS = 254  # a weight w in [0, 1] is sent as the byte 1 + round(254 w); 0: a blank cell
WEIGHT_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


def weight_codes(z: np.ndarray) -> np.ndarray:
    """Weights in [0, 1] with NaN blanks (any shape) as uint8 codes: 0 for a blank cell, else
    1 + round(WEIGHT_STEPS · w) (1 … 255; each weight within 1/508 of its code's)."""
    codes = 1 + np.rint(np.clip(np.nan_to_num(z, nan=0.0), 0, 1) * WEIGHT_STEPS)
    return np.where(np.isnan(z), 0, codes).astype(np.uint8)


def compact_weights(trace: dict) -> dict:
    """A weights heatmap trace (z in [0, 1], NaN blank, colour scale "Blues") sent as one byte a
    cell instead of four (issue 26: the model view was 470 of the 597 kB a new 64-token sentence
    sent): z as `weight_codes`, the colour scale stretched over the codes with code 0
    transparent (so a blank stays blank; white in high contrast's Greys), a colour bar that reads
    weights, and `meta["weight_codes"]` saying how to decode (figures.summary reads it). The
    hover names the cell without its weight (a blank's code would read as one): the chosen head's
    own map has each weight exactly."""
    z = trace["z"]
    scale = [
        [(1 + WEIGHT_STEPS * float(at)) / 255, colour] for at, colour in get_colorscale("Blues")
    ]
    ticks = [1 + WEIGHT_STEPS * w for w in WEIGHT_TICKS]
    trace.update(
        z=weight_codes(z),
        zmin=0,
        zmax=255,
        colorscale=[[0.0, "rgba(255,255,255,0)"], *scale],
        colorbar={"tickvals": ticks, "ticktext": [f"{w:g}" for w in WEIGHT_TICKS]},
        hovertemplate="%{y}<br>%{x}<extra></extra>",
        meta={"weight_codes": {"blank": 0, "offset": 1, "steps": WEIGHT_STEPS}},
    )
    return trace


def qk_products(q: np.ndarray, keys: np.ndarray, tokens: list[str], query_token: str) -> go.Figure:
    """q ∘ k_j for every key j: (T, d_head); row sums are the dot products q·k_j (the page's
    text under it says so). The dimensions are a numeric axis: Plotly spaces their ticks to the
    width it gets (every one on a projector, every 5th on a phone), the hover names each."""
    trace, layout = heatmap_spec(
        q[None, :] * keys,
        y_labels=shown(tokens),
        title=f"q ∘ k for query '{query_token}'",
        x_title="dimension of the head",
        y_title="key token",
        colorscale="RdBu_r",
    )
    trace["x"] = np.arange(q.shape[0], dtype=np.int32)
    layout["xaxis"] = {"title": {"text": "dimension of the head"}, "automargin": True}
    layout["height"] = max(layout.get("height") or 0, MAP_HEIGHT)
    titled(layout, layout["title"]["text"])  # full width: one line, even in lecture mode
    return fast_figure([trace], settle_margins(layout, right=90))


def qk_bars(
    scores: np.ndarray, weights: np.ndarray, tokens: list[str]
) -> tuple[go.Figure, go.Figure]:
    """q·k_j/√d per key (T,), and its softmax (T,), which equals the model's attention row (both
    from topics.pretrained.analysis.query_row: figures compute no attention)."""
    labels = shown(tokens)
    figs = (
        bar_chart(scores, labels, "q·k / √d_head for each key", "score"),
        bar_chart(weights, labels, "softmax: the attention weights", "weight", y_range=(0, 1.1)),
    )
    if len(labels) > PRINTED_BARS:  # unreadable, and the browser lays out each: hover only
        for fig in figs:
            fig.data[0].text, fig.data[0].textposition = None, "none"
    for fig in figs:  # settled on a plain copy of the layout (no validation of 64 labels)
        settled = settle_margins(fig.layout.to_plotly_json(), right=20)
        fig.update_layout(margin=settled["margin"])
        for name in ("xaxis", "yaxis"):  # unchanged (None stays None) below SETTLED_MIN
            fig.layout[name].automargin = settled[name].get(
                "automargin", fig.layout[name].automargin
            )
    return figs


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
                "name": {"query": "queries", "key": "keys"}[kind],
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
        "height": 460,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "xaxis": {"title": {"text": "component 1"}},
        "yaxis": {"title": {"text": "component 2"}},
        "legend": {"orientation": "h", "y": -0.15},
    }
    titled(layout, f"Queries and keys of one head ({method.upper()})")  # fits a phone
    return fast_figure(traces, layout)
