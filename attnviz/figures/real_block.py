"""Figures of "Inside one block of a real model" (attnviz.topics.real_block): a block's numbers
step by step, each with its shape; vectors of the model's width (576) or its MLP's (1536) are
shown by their first SHOWN dimensions (the title says so), a head's (64) whole, the first NUMBERS
of them in numbers under the map as well. `rows` are the
token rows shown: the query token's alone (one row first) or every token's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

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


def qkv_figure(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, labels, rows, names, title: str
) -> go.Figure:
    """Q's rows (head h), K and V of every token (its key/value head), side by side."""
    figure = make_subplots(1, 3, horizontal_spacing=0.12)  # names under each map
    shown = [(q[list(rows)], [labels[r] for r in rows]), (k, list(labels)), (v, list(labels))]
    for col, (matrix, ys) in enumerate(shown, 1):
        bound = _bound(matrix) or 1.0
        figure.add_trace(
            go.Heatmap(
                z=matrix,
                y=ys,
                colorscale=DIVERGING,
                zmin=-bound,
                zmax=bound,
                showscale=False,
                hovertemplate="%{y}, dim %{x}: %{z:.4f}<extra></extra>",
            ),
            1,
            col,
        )
        figure.update_yaxes(
            autorange="reversed", type="category", showticklabels=col < 3, row=1, col=col
        )  # V's rows are K's: labelled once
    for col, name in enumerate(names, 1):
        figure.update_xaxes(title_text=name, row=1, col=col)
    figure.update_layout(height=max(280, 170 + 24 * len(labels)))
    return retitled(figure, title)


def rope_arrows(before: np.ndarray, after: np.ndarray, angles: np.ndarray, token: str):
    """The query's first PAIRS rotary pairs as arrows from the origin, before (grey) and after
    (orange) the rotation by position × frequency (`angles`, radians)."""
    half = len(before) // 2
    names = [f"pair {i}<br>{angles[i]:.2f} rad" for i in range(PAIRS)]
    figure = make_subplots(2, PAIRS // 2, vertical_spacing=0.28)  # names under each plot
    for i in range(PAIRS):
        row, col = divmod(i, PAIRS // 2)
        reach = 1.15 * max(np.hypot(before[i], before[i + half]), 1e-6)
        for vec, colour, name in ((before, GREY, "before"), (after, HIGHLIGHT_COLOR, "after")):
            x, y = float(vec[i]), float(vec[i + half])
            figure.add_trace(
                go.Scatter(
                    x=[0, x],
                    y=[0, y],
                    mode="lines+markers",
                    line={"color": colour, "width": 3},
                    marker={"size": [0, 9], "color": colour},
                    name=name,
                    legendgroup=name,
                    showlegend=i == 0,
                    hovertemplate=f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
                ),
                row + 1,
                col + 1,
            )
        figure.update_xaxes(
            range=[-reach, reach],
            showticklabels=False,
            title_text=names[i],
            row=row + 1,
            col=col + 1,
        )
        figure.update_yaxes(
            range=[-reach, reach],
            showticklabels=False,
            scaleanchor=f"x{i + 1}",
            row=row + 1,
            col=col + 1,
        )
    figure.update_layout(height=500, legend={"orientation": "h", "y": -0.2})
    return retitled(figure, f"4. RoPE turns each pair of q at {token} by position × frequency")


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
