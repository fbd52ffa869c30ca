"""Figures of "Inside one block of a real model" (attnviz.topics.real_block): a block's numbers
step by step, each with its shape; vectors of the model's width (576) or its MLP's (1536) are
shown by their first SHOWN dimensions (the title says so), a head's (64) whole, the first NUMBERS
of them in numbers under the map as well. `rows` are the
token rows shown: the query token's alone (one row first) or every token's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import (
    BAR_COLOR,
    DIVERGING,
    HIGHLIGHT_COLOR,
    bar_chart,
    fast_figure,
    heatmap_spec,
    matrix_figure,
)
from attnviz.figures.fonts import NARROW_TITLE, retitled, titled

SHOWN = 16  # dimensions of a wide vector shown
NUMBERS = 8  # of those, printed in numbers under the map (figures.table.number_slice)
PAIRS = 8  # rotary pairs drawn as arrows (the fastest)
TICK_EVERY = 5  # a vector's dimensions labelled
GREY = "#868e96"
DARK = "#343a40"


def _bound(matrix: np.ndarray) -> float:
    finite = np.asarray(matrix)[np.isfinite(matrix)]
    return float(np.abs(finite).max()) if finite.size else 1.0


def vectors(
    matrix: np.ndarray,
    labels: Sequence[str],
    rows: Sequence[int],
    title: str,
    width: int,
    row_name: str = "token",
) -> go.Figure:
    """Token rows (or, `row_name` "step", one token's steps) × their first SHOWN dimensions
    (all, when the width is SHOWN or less), on a diverging scale; `width` is the vectors' full
    width, named in the title."""
    cut = matrix[list(rows)][:, :SHOWN]  # (R, ≤ SHOWN)
    shape = f"{len(labels)} × {width}" + (f"; dims 0–{SHOWN - 1} shown" if width > SHOWN else "")
    bound = _bound(cut) or 1.0
    trace, layout = heatmap_spec(
        cut,
        [str(j) for j in range(cut.shape[1])],
        [labels[r] for r in rows],
        "",
        "dimension",
        row_name,
        zmin=-bound,
        zmax=bound,
        colorscale=DIVERGING,
    )
    titled(layout, f"{title} [{shape}]", NARROW_TITLE)
    every = trace["x"][::TICK_EVERY]  # dimension numbers: every fifth fits a phone's width
    layout["xaxis"].update(tickvals=every, ticktext=every, tickangle=0)
    layout["height"] = max(220, 140 + 30 * len(rows))
    layout["meta"].update(numbers=NUMBERS, width=width)  # the first dims in numbers, too
    return fast_figure([trace], layout)


def rms_bars(
    series: dict[str, np.ndarray], labels: Sequence[str], query: int, layer: int
) -> go.Figure:
    """Each token's rms at each RMSNorm (the first's numbers printed, the query's bar in
    orange): before attention, before the MLP and, after the last block, the final norm."""
    names = list(series)
    title = f"2. RMSNorm in block {layer}: each token's rms √(mean x² + ε)"
    figure = bar_chart(series[names[0]], labels, title, "rms", "token", highlight=query)
    figure.update_traces(name=names[0], constraintext="none", textangle=-90)  # upright, whole
    for name, colour in zip(names[1:], (GREY, DARK), strict=False):
        figure.add_bar(
            x=figure.data[0].x,
            y=series[name],
            name=name,
            marker_color=colour,
            hovertemplate=f"{name}, %{{x}}: %{{y:.4f}}<extra></extra>",
        )
    top = max(float(np.max(values)) for values in series.values())
    figure.update_layout(barmode="group", showlegend=True, height=360)
    figure.update_yaxes(range=[0, 1.25 * top])  # room for the numbers (upright in lecture mode)
    return figure


def subplot_grid(rows: int, cols: int, across: float, down: float = 0.0) -> dict:
    """The axes of a rows × cols grid as plotly's make_subplots lays them out (`across`,
    `down`: the gaps between columns and rows, in paper fractions), built as a plain layout
    (make_subplots validates every property: ~20 ms a figure, the page's slowest views).
    Subplot i (row by row, from 1) has axes x{i} and y{i} ("x" and "y" for the first)."""
    width, height = (1 - across * (cols - 1)) / cols, (1 - down * (rows - 1)) / rows
    layout = {}
    for i in range(rows * cols):
        row, col = divmod(i, cols)
        x0, y1 = col * (width + across), 1 - row * (height + down)
        x, y = _axes(i)
        layout[f"xaxis{x[1:]}"] = {"anchor": y, "domain": [x0, x0 + width]}
        layout[f"yaxis{y[1:]}"] = {"anchor": x, "domain": [y1 - height, y1]}
    return layout


def _axes(i: int) -> tuple[str, str]:
    """Subplot i's (from 0) axis names as its traces name them ("x", "y"; "x2", "y2"…)."""
    n = "" if i == 0 else str(i + 1)
    return f"x{n}", f"y{n}"


def qkv_figure(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, labels, rows, names, title: str
) -> go.Figure:
    """Q's rows (head h), K and V of every token (its key/value head), side by side."""
    layout = subplot_grid(1, 3, across=0.12)  # names under each map
    shown = [(q[list(rows)], [labels[r] for r in rows]), (k, list(labels)), (v, list(labels))]
    data = []
    for i, (matrix, ys) in enumerate(shown):
        bound = _bound(matrix) or 1.0
        x, y = _axes(i)
        data.append(
            {
                "type": "heatmap",
                "z": matrix,
                "y": ys,
                "colorscale": DIVERGING,
                "zmin": -bound,
                "zmax": bound,
                "showscale": False,
                "hovertemplate": "%{y}, dim %{x}: %{z:.4f}<extra></extra>",
                "xaxis": x,
                "yaxis": y,
            }
        )
        layout[f"yaxis{y[1:]}"] |= {
            "autorange": "reversed",
            "type": "category",
            # K's rows are V's: labelled once, right of V, in the margin (between the maps, on a
            # phone's 120 px columns, "␣capital" lay over Q's cells)
            "showticklabels": i != 1,
            "side": "right" if i == 2 else "left",
        }
        layout[f"xaxis{x[1:]}"]["title"] = {"text": names[i]}
    layout["height"] = max(280, 170 + 24 * len(labels))
    return retitled(fast_figure(data, layout), title)


def rope_arrows(before: np.ndarray, after: np.ndarray, angles: np.ndarray, token: str):
    """The query's first PAIRS rotary pairs as arrows from the origin, before (grey) and after
    (orange) the rotation by position × frequency (`angles`, radians)."""
    half = len(before) // 2
    layout = subplot_grid(2, PAIRS // 2, across=0.2 / (PAIRS // 2), down=0.28)  # names under
    data = []
    for i in range(PAIRS):
        reach = 1.15 * max(np.hypot(before[i], before[i + half]), 1e-6)
        x, y = _axes(i)
        for vec, colour, name in ((before, GREY, "before"), (after, HIGHLIGHT_COLOR, "after")):
            data.append(
                {
                    "type": "scatter",
                    "x": [0, float(vec[i])],
                    "y": [0, float(vec[i + half])],
                    "mode": "lines+markers",
                    "line": {"color": colour, "width": 3},
                    "marker": {"size": [0, 9], "color": colour},
                    "name": name,
                    "legendgroup": name,
                    "showlegend": i == 0,
                    "hovertemplate": f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
                    "xaxis": x,
                    "yaxis": y,
                }
            )
        common = {"range": [-reach, reach], "showticklabels": False}
        layout[f"xaxis{x[1:]}"] |= common | {"title": {"text": f"pair {i}<br>{angles[i]:.2f} rad"}}
        layout[f"yaxis{y[1:]}"] |= common | {"scaleanchor": x}
    layout |= {"height": 500, "legend": {"orientation": "h", "y": -0.2}}
    return retitled(
        fast_figure(data, layout),
        f"4. RoPE turns each pair of q at {token} by position × frequency",
    )


def rope_scores(plain: np.ndarray, turned: np.ndarray, keys: Sequence[str], token: str):
    """The query's scores q·k/√d with each earlier key, without and with the rotation."""
    figure = go.Figure(
        [
            go.Bar(x=list(keys), y=plain, name="without RoPE", marker_color=GREY),
            go.Bar(x=list(keys), y=turned, name="with RoPE", marker_color=BAR_COLOR),
        ]
    )
    figure.update_layout(barmode="group", height=340, yaxis_title="score", xaxis_title="key token")
    figure.update_xaxes(type="category")
    return retitled(figure, f"5. Scores of {token}, q·k/√d, without and with RoPE")


def scores_figure(scores: np.ndarray, labels, rows, head: int, weights: bool) -> go.Figure:
    """The rows of the scores (−∞ where masked) or of the softmax weights, numbers printed."""
    title = (
        f"7. softmax: head {head}'s weights (each row sums to 1)"
        if weights
        else f"6. QKᵀ/√d with the causal mask, head {head}"
    )
    shown = scores[list(rows)]
    return matrix_figure(
        shown,
        title,
        "query",
        "key",
        [labels[r] for r in rows],
        list(labels),
        diverging=not weights,
        width_px=560,
    )


def next_token_bars(probs: np.ndarray, labels: Sequence[str], kept: int, t: float, p: float):
    """The ten likeliest next tokens at temperature t; the top-p nucleus (the first `kept`) in
    blue, the rest cut (grey)."""
    colours = [BAR_COLOR if i < kept else GREY for i in range(len(probs))]
    figure = bar_chart(
        probs, labels, f"12. The next token at temperature {t:g}, top-p {p:g}", "probability"
    )
    figure.update_traces(marker_color=colours, constraintext="none")
    # room above the tallest bar for its number (upright in lecture mode: cut at 0.8 before)
    figure.update_yaxes(range=[0, 1.25 * float(np.max(probs))])
    return figure
