"""Figures of the text page: per-head heatmap grid, positional encodings, the temperature rows,
one query row, outputs, and the saturation curve."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import TITLE_CHARS, token_axis
from attnviz.figures.base import bar_chart, fast_figure, heatmap, line_chart, unique_labels
from attnviz.figures.fonts import NARROW_TITLE, titled
from attnviz.figures.grid import BOTTOM_PX, TOP_PX, auto_columns, plan_grid
from attnviz.figures.long_maps import max_pool, pool_labels

# one colour per head (the head view): Okabe–Ito's palette and Paul Tol's wine, every pair at
# CIE76 ΔE ≥ 15 under simulated deuteranopia and protanopia, the first four ≥ 24 (the text page
# shows 4 heads); black last: least seen (tests/engine/test_colour_vision.py)
HEAD_COLORS = [
    "#0072b2",  # blue
    "#e69f00",  # orange
    "#009e73",  # bluish green
    "#56b4e9",  # sky blue
    "#d55e00",  # vermillion
    "#cc79a7",  # reddish purple
    "#882255",  # wine
    "#000000",  # black
]
GRID_MAX = 128  # larger maps are max-pooled in the small-multiples grid
HEAD_VIEW_MAX = 64
BAR_MAX = 64  # a query row of more tokens is drawn as a line


def shown(tokens: list[str]) -> list[str]:
    """Tokens as labels: HTML-escaped (Plotly renders tags), spaces visible, repeats distinct."""
    return unique_labels(
        [html.escape(t.replace(" ", "␣").replace("\n", "⏎"), quote=False) or "∅" for t in tokens]
    )


def block_average(m: np.ndarray, size: int) -> np.ndarray:
    """Block-average a (T, T) map down to at most size × size (see long_maps.max_pool for the
    overview that keeps sharp weights visible)."""
    t = m.shape[0]
    if t <= size:
        return m
    edges = np.linspace(0, t, size + 1).astype(int)
    rows = np.add.reduceat(m, edges[:-1], axis=0) / np.diff(edges)[:, None]
    return np.add.reduceat(rows, edges[:-1], axis=1) / np.diff(edges)[None, :]


def heads_grid(
    weights: np.ndarray,
    tokens: list[str],
    columns: int | None = None,
    pool: int = GRID_MAX,
    names: list[str] | None = None,
    cell_height: int = 200,
    reduce: str = "max",
    zmax: float | None = None,
) -> go.Figure:
    """Every head's (T, T) map as small multiples sharing one colour scale (0 to `zmax`, by
    default 1), on categorical token axes (digit tokens stay tokens), every label up to 64.

    The figure grows with heads and tokens (grid.plan_grid) so maps never overlap; `columns`
    None picks 4, 2 or 1 per row from T. Maps larger than `pool` are pooled per block, by
    default with the maximum (`reduce="max"`), so sharp weights survive; "mean" averages.
    Pooled maps are coloured 0 to their largest weight (said in the title) unless `zmax`."""
    h, t = weights.shape[0], weights.shape[1]
    pooled = t > pool
    if pooled:
        labels = pool_labels(t, pool)
        squeeze = max_pool if reduce == "max" else block_average
    else:
        labels, squeeze = shown(tokens), (lambda m, _size: m)
    columns = columns or auto_columns(h, len(labels))
    plan = plan_grid(h, columns, labels, least=cell_height)
    names = names or [f"head {i}" for i in range(h)]
    data, notes = [], []
    layout = {"height": plan.height, "margin": {"l": 10, "r": 80, "t": TOP_PX, "b": BOTTOM_PX}}
    zs = [squeeze(weights[i], pool).astype(np.float32) for i in range(h)]  # (n, n) each
    top = zmax or (max(0.01, float(np.ceil(max(z.max() for z in zs) * 100) / 100)) if pooled else 1)
    for i, z in enumerate(zs):
        n = "" if i == 0 else str(i + 1)
        data.append(_head_trace(z, labels, names[i], n, min(1.0, 600 / plan.height), top))
        xd, yd = plan.x_domains[i], plan.y_domains[i]
        layout[f"xaxis{n}"] = _key_axis(labels, list(xd), f"y{n}")
        layout[f"yaxis{n}"] = _query_axis(labels, list(yd), f"x{n}", i % columns == 0)
        notes.append(_map_name(names[i], (xd[0] + xd[1]) / 2, plan.title_y[i]))
    layout["annotations"] = notes
    how = "max-pooled (each cell: its block's largest weight)" if reduce == "max" else "averaged"
    title = "Attention weights per head"  # rows: queries, columns: keys (the page says)
    title += f"; {t} tokens in {len(labels)} blocks, {how}" if pooled else ""
    title += f"; colours 0 to {top:.2f}" if top != 1 else ""
    titled(layout, title, NARROW_TITLE if len(title) > NARROW_TITLE else TITLE_CHARS)
    return fast_figure(data, layout)


def _key_axis(labels: list[str], domain: list[float], anchor: str) -> dict:
    """A map's key axis: token categories in order, turned upright, ticks spaced by Plotly to the
    width the map gets (every key on a projector, every 2nd or 3rd on a phone, where a map is 60
    px wide; the hover names each key). Upright labels spaced one line apart never overprint."""
    axis = token_axis(labels, domain=domain, anchor=anchor, automargin=False, tickangle=-90)
    for drawn in ("tickmode", "tickvals", "ticktext"):
        axis.pop(drawn, None)
    return axis


def _query_axis(labels: list[str], domain: list[float], anchor: str, labelled: bool) -> dict:
    """A map's query axis, shared along its row of maps: only the first map of a row writes the
    query tokens, in a left margin Plotly grows to hold them (automargin) at any font and width;
    the other maps of the row are read across (their hover names each query)."""
    return token_axis(
        labels,
        True,
        domain=domain,
        anchor=anchor,
        autorange="reversed",
        automargin=labelled,
        showticklabels=labelled,
    )


def _head_trace(
    z: np.ndarray, labels: list[str], name: str, n: str, bar_len: float, zmax: float = 1.0
) -> dict:
    """One head's heatmap on axes x{n}/y{n}; only the first (n == "") shows the colour bar."""
    return {
        "type": "heatmap",
        "z": z,
        "x": labels,
        "y": labels,
        "zmin": 0,
        "zmax": zmax,
        "colorscale": "Blues",
        "showscale": n == "",
        "colorbar": {"len": bar_len, "y": 1, "yanchor": "top"},
        "xaxis": f"x{n}",
        "yaxis": f"y{n}",
        "hovertemplate": f"{name}<br>query %{{y}}<br>key %{{x}}<br>"
        "weight %{z:.3f}<extra></extra>",
    }


def _map_name(name: str, x: float, y: float) -> dict:
    """A map's name centred above it (paper coordinates)."""
    return {
        "text": html.escape(name, quote=False),
        "x": x,
        "y": y,
        "xref": "paper",
        "yref": "paper",
        "xanchor": "center",
        "yanchor": "bottom",
        "showarrow": False,
    }


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
    return fig


def weights_map(weights: np.ndarray, tokens: list[str], title: str) -> go.Figure:
    """One (T, T) attention map with token labels, on the fixed 0-to-1 colour scale."""
    labels = shown(tokens)
    return heatmap(weights, labels, labels, title=title, zmin=0.0, zmax=1.0)


def vectors_map(matrix: np.ndarray, tokens: list[str], title: str) -> go.Figure:
    """One vector per token (rows) over its dimensions (columns), on a diverging scale."""
    return heatmap(matrix, None, shown(tokens), title, "dimension", "token", colorscale="RdBu_r")


def query_row_figure(row: np.ndarray, tokens: list[str], query: int, head: int) -> go.Figure:
    """Where one query token looks: its row of weights (T,) as bars over the key tokens, or as
    a line over the key positions past BAR_MAX tokens."""
    labels = shown(tokens)
    title = f"Where '{labels[query]}' looks (head {head}); the row sums to {row.sum():.3f}"
    if len(tokens) <= BAR_MAX:
        return bar_chart(row, labels, title, "weight", "key token", (0, 1.1), query)
    return line_chart(np.arange(len(tokens)), {"weight": row}, title, "key position", "weight")
