"""Figures of the "Inside a language model" page: the next token's distribution, the query heads
grouped by the key/value head they share, the logit lens, head-score maps, the first token's
share of attention, and the key/value cache's bytes per token. Figures compute nothing about
the model: they draw arrays from attnviz.topics.language_model."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import (
    BAR_COLOR,
    HIGHLIGHT_COLOR,
    bar_chart,
    base_layout,
    fast_figure,
    heatmap_spec,
    line_chart,
    unique_labels,
)
from attnviz.figures.fonts import NARROW_TITLE, retitled, titled
from attnviz.figures.text import heads_grid, shown

LENS_TEXT_MAX = 24  # positions up to which each lens cell writes its top token


def next_token_figure(
    labels: list[str], probs: np.ndarray, chosen: int | None, exact: list[str] | None = None
) -> go.Figure:
    """The most likely next tokens as bars, most likely first; `chosen` (an index) in orange;
    `exact`: each token's id and bytes, in its hover. Its title on one line and 300 px tall:
    the whole chart fits a projector's first screen under the prompt."""
    fig = bar_chart(
        probs,
        shown(labels),
        f"Next token: the {len(labels)} most likely",
        "probability",
        "token",
        y_range=(0.0, 1.12),
        highlight=chosen,
    )
    if exact is not None:
        fig.update_traces(
            customdata=exact, hovertemplate="%{x}: %{y:.4f}<br>%{customdata}<extra></extra>"
        )
    return retitled(fig, fig.layout.meta["title"], 60).update_layout(height=300)


def grouped_heads(weights: np.ndarray, tokens: list[str], group_size: int, layer: int) -> go.Figure:
    """One layer's query heads (H, T, T), one row per key/value head: the heads of a row read
    the same keys and values (grouped-query attention)."""
    h = weights.shape[0]
    names = [f"h{i} (KV {i // group_size})" for i in range(h)]
    fig = heads_grid(weights, tokens, columns=group_size, names=names, pool=48)
    # tokens are named in each map's hover and in the one-head map below: upright key labels
    # under every map ran into the next row's names in lecture type (a long piece was cut), and
    # on a projector's stage the query labels of a 200 px map printed over each other
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    groups = h // group_size
    title = f"Layer {layer}: {h} query heads in {groups} groups, each row reading one KV head"
    return retitled(fig, title)


def lens_figure(
    top_labels: list[list[str]], probs: np.ndarray, hover: list[list[str]], tokens: list[str]
) -> go.Figure:
    """Layers (rows, 1 at the top) × positions: each cell shaded by the probability of its top
    token, written in the cell up to LENS_TEXT_MAX positions; the hover lists its top 5."""
    layers, t = probs.shape
    trace, layout = heatmap_spec(
        probs,
        shown(tokens),
        [f"layer {i + 1}" for i in range(layers)],
        "Logit lens: the top next token after each layer",
        x_title="position (its token)",
        y_title="after layer",
        zmin=0.0,
        zmax=1.0,
    )
    trace["customdata"] = np.array(hover, dtype=object)
    trace["hovertemplate"] = "%{y}, position %{x}<br>%{customdata}<extra></extra>"
    if t <= LENS_TEXT_MAX:
        trace["text"] = np.array([[html.escape(s, quote=False) for s in row] for row in top_labels])
        trace["texttemplate"] = "%{text}"
        trace["textfont"] = {"size": 11}
    layout["height"] = max(layout.get("height") or 0, 60 + 22 * layers + 120)
    return fast_figure([trace], layout)


def lens_last_figure(top: list[str], probs: np.ndarray, position: str) -> go.Figure:
    """The logit lens at one position: after each layer, its top token (written on the bar) and
    that token's probability (the bar)."""
    layers = [str(i + 1) for i in range(len(top))]
    title = f"After each layer, the top next token at '{html.escape(position, quote=False)}'"
    fig = bar_chart(probs, layers, title, "probability", "after layer", y_range=(0.0, 1.0))
    return fig.update_traces(
        text=[html.escape(t, quote=False) for t in top],
        textposition="inside",
        textangle=-90,
        insidetextanchor="start",
        hovertemplate="after layer %{x}: %{text} %{y:.3f}<extra></extra>",
    )


def score_map(scores: np.ndarray, kind: str) -> go.Figure:
    """(L, H) scores of one kind, layers as rows."""
    layers, heads = scores.shape
    trace, layout = heatmap_spec(
        scores,
        [str(h) for h in range(heads)],
        [str(layer) for layer in range(layers)],
        f"{kind.capitalize()} score of every head",
        x_title="head",
        y_title="layer",
        zmin=0.0,
        zmax=1.0,
    )
    layout["height"] = max(layout.get("height") or 0, 60 + 18 * layers + 80)
    every = 5 if layers > 12 else 1  # a stage squeezes 30 rows: every 5th layer named
    layout["yaxis"].update(
        tickvals=layout["yaxis"]["tickvals"][::every], ticktext=layout["yaxis"]["ticktext"][::every]
    )
    return fast_figure([trace], titled(layout, layout["title"]["text"], NARROW_TITLE))


def sink_map(shares: np.ndarray, first: str) -> go.Figure:
    """(L, H) weight on the first token ("first", its label), layers as rows."""
    return retitled(score_map(shares, "first-token"), f"Weight on the first token ({first})")


def sink_flow_map(shares: np.ndarray, first: str) -> go.Figure:
    """(L, H) share of what each head moves that comes from the first token (by norm)."""
    title = f"What flows from the first token ({first}): each head's share of what it moves"
    return retitled(score_map(shares, "first-token"), title)


def sink_lines(with_bos: np.ndarray, without_bos: np.ndarray, first: str) -> go.Figure:
    """Each layer's mean weight on the first token, with the BOS token in front and without."""
    layers = np.arange(with_bos.shape[0])
    return line_chart(
        layers,
        {
            "with BOS in front": with_bos.mean(1),
            f"without (first token {first})": without_bos.mean(1),
        },
        "Mean weight on the first token, per layer",
        "layer",
        "weight on position 0",
    )


def kv_bytes_figure(rows: list[tuple[str, int]]) -> go.Figure:
    """Bytes per token of the key/value cache, one bar per attention kind."""
    names, values = [name for name, _ in rows], np.array([b for _, b in rows], dtype=np.float32)
    fig = bar_chart(values, names, "Key/value cache, bytes per token", "bytes per token")
    return fig.update_traces(text=[f"{int(v):,}" for v in values])  # whole bytes


def writes_figure(
    promoted: list[tuple[str, float]], suppressed: list[tuple[str, float]], title: str
) -> go.Figure:
    """What a head writes, read as next-token logits: horizontal bars, one token a row (a token
    reads across), those it raises most on top (blue, most first), those it lowers most below
    (orange, lowest last); each bar its push on that token's logit, exact in the hover."""
    pairs = promoted + suppressed[::-1]
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": unique_labels(shown([token for token, _ in pairs])),
        "x": [value for _, value in pairs],
        "marker": {"color": [BAR_COLOR] * len(promoted) + [HIGHLIGHT_COLOR] * len(suppressed)},
        "hovertemplate": "%{y}: %{x:+.3f}<extra></extra>",
    }
    layout = base_layout(title, 60 + 30 * len(pairs), NARROW_TITLE)
    layout["xaxis"] = {"title": {"text": "change of the next token's logit"}, "zeroline": True}
    layout["yaxis"] = {"autorange": "reversed", "automargin": True}
    return fast_figure([trace], layout)
