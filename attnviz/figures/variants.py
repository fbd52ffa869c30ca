"""Figures of the attention variants trained side by side (attnviz.topics.attention_since_2017):
every variant's loss and accuracy on one chart, its first token's share of attention, its KV cache
and parameters as bars, and the real models' caches beside their multi-head reference. No torch."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import token_axis
from attnviz.figures.base import BAR_COLOR, HIGHLIGHT_COLOR, bar_chart, base_layout, fast_figure

WIDE_TITLE = 48  # characters a title line of these page-wide figures holds (a phone's width)
# Okabe–Ito's colours (no yellow: too pale on white), one per variant in VARIANTS' order
COLORS = ("#000000", "#0072b2", "#56b4e9", "#009e73", "#cc79a7", "#d55e00", "#e69f00")


def _line(x, y, name: str, color: str, axis: str, legend: bool, what: str) -> dict:
    return {
        "type": "scatter",
        "x": np.asarray(x, dtype=np.float32),
        "y": np.asarray(y, dtype=np.float32),
        "name": name,
        "legendgroup": name,
        "showlegend": legend,
        "mode": "lines+markers" if len(x) < 3 else "lines",
        "line": {"color": color},
        "xaxis": f"x{axis}",
        "yaxis": f"y{axis}",
        "hovertemplate": f"{name}<br>step %{{x}}<br>{what} %{{y:.4f}}<extra></extra>",
    }


def progress_figure(
    steps: Sequence[int],
    loss: dict[str, np.ndarray],
    accuracy: dict[str, np.ndarray],
    colors: dict[str, str],
    until: int | None = None,
) -> go.Figure:
    """Left: each variant's validation loss by step; right: its validation accuracy. One
    colour a variant (the legend names it once). `until`: the x axes run from step 0 to it (a
    run's length, before the run has more than its step 0), else to the data."""
    data = []
    for name in loss:
        data.append(_line(steps, loss[name], name, colors[name], "", True, "loss"))
        data.append(_line(steps, accuracy[name], name, colors[name], "2", False, "accuracy"))
    layout = base_layout("Each variant's loss (left) and accuracy (right) by step", 320, WIDE_TITLE)
    layout |= {  # "by step" in the title names the x axes; the legend in the bottom margin
        "xaxis": {"domain": [0, 0.46], "rangemode": "nonnegative"},
        "yaxis": {"title": {"text": "validation loss (nats)"}, "rangemode": "tozero"},
        "xaxis2": {"domain": [0.54, 1], "anchor": "y2", "rangemode": "nonnegative"},
        "yaxis2": {"title": {"text": "token accuracy"}, "anchor": "x2", "range": [0, 1.02]},
        # Plotly reserves the legend's rows there before it places the ticks: they never meet
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
    }
    if until:
        layout["xaxis"]["range"] = layout["xaxis2"]["range"] = [0, until]
    return fast_figure(data, layout)


def first_token_figure(
    names: Sequence[str], shares: np.ndarray, uniform: float, step: int
) -> go.Figure:
    """Each variant's mean weight on the first token (bars) against an even spread (a line)."""
    title = f"Step {step}: first token's share of attention (dashed: even spread, {uniform:.3f})"
    fig = bar_chart(np.asarray(shares), list(names), title, "weight on token 0", "variant")
    fig.layout.update(
        shapes=[
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": uniform,
                "y1": uniform,
                "line": {"color": HIGHLIGHT_COLOR, "dash": "dash"},
            }
        ]
    )
    return fig


def cache_figure(names: Sequence[str], per_token: np.ndarray, params: np.ndarray) -> go.Figure:
    """Left: KV-cache bytes per token (bf16, every layer); right: attention parameters."""
    labels = list(names)
    data = [
        _bars(labels, per_token, "KV cache", "bytes per token", BAR_COLOR, ""),
        _bars(labels, params, "attention parameters", "parameters", "#868e96", "2"),
    ]
    layout = base_layout(
        "KV cache bytes per token, bf16 (left), and attention parameters (right)", 360, WIDE_TITLE
    )
    layout |= {
        "showlegend": False,
        "xaxis": token_axis(labels, domain=[0, 0.46], title={"text": "variant"}),
        "yaxis": {"title": {"text": "bytes per token"}},
        "xaxis2": token_axis(labels, domain=[0.54, 1], title={"text": "variant"}, anchor="y2"),
        "yaxis2": {"title": {"text": "parameters"}, "anchor": "x2"},
    }
    return fast_figure(data, layout)


def _bars(labels: list[str], values: np.ndarray, name: str, what: str, color: str, axis: str):
    vals = np.asarray(values, dtype=np.float32)
    return {
        "type": "bar",
        "x": labels,
        "y": vals,
        "name": name,
        "marker": {"color": color},
        "text": [f"{v:,.0f}" for v in vals],
        "textposition": "outside",
        "cliponaxis": False,
        "xaxis": f"x{axis}",
        "yaxis": f"y{axis}",
        "hovertemplate": f"%{{x}}<br>{what}: %{{y:,.0f}}<extra></extra>",
    }


def real_cache_figure(
    names: Sequence[str], per_token: np.ndarray, mha: np.ndarray, context: int
) -> go.Figure:
    """Each real model's KV cache per token of a `context`-token context (bf16), beside the same
    layers as multi-head attention; log y axis."""
    labels = list(names)
    data = [
        _bars(labels, per_token, "the model's cache", "bytes per token", BAR_COLOR, ""),
        _bars(labels, mha, "as multi-head attention", "bytes per token", "#adb5bd", ""),
    ]
    for trace in data:
        trace["text"] = [_kib(v) for v in trace["y"]]
    title = f"KV cache per token at {context:,} tokens (bf16), beside multi-head attention's"
    layout = base_layout(title, 420, WIDE_TITLE)
    layout |= {
        "barmode": "group",
        "xaxis": token_axis(labels),
        "yaxis": {  # decades only: labelled minor ticks of a log axis overprint each other
            "title": {"text": "bytes per token (log)"},
            "type": "log",
            "dtick": 1,
            "tickformat": "~s",
            # room above the tallest bar for its upright label, which was drawn over the title
            "range": [math.log10(min(per_token.min(), mha.min()) / 3), math.log10(mha.max() * 12)],
        },
        "legend": {"y": 0.99, "yanchor": "top", "x": 0.01, "bgcolor": "rgba(255,255,255,0.8)"},
    }  # the legend over the smallest cache's bars: room on a log axis up to multi-head's
    return fast_figure(data, layout)


def _kib(n: float) -> str:
    return f"{n / 1024:,.0f} KiB" if n >= 10 * 1024 else f"{n / 1024:.1f} KiB"
