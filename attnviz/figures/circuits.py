"""Figures of the Watching circuits form page: curves over training with an optional marked step
(the phase change), per-head score lines, the embedding's Fourier spectrum, bar charts of losses
(eviction, ablation). Plain arrays in, Plotly figures out; no torch."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import bar_chart, base_layout, fast_figure
from attnviz.figures.fonts import NARROW_TITLE

# Okabe–Ito, one per head (up to 4), told apart under colour-vision deficiencies
HEAD_COLORS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7")
TRAIN_COLOR, VAL_COLOR, MARK_COLOR = "#3b5bdb", "#e8590c", "#555"
HEIGHT = 340
WIDE_TITLE = 60  # the main view spans the stage


def head_names(layers: int, heads: int) -> list[str]:
    """["L0H0", "L0H1", …] in layer-major order."""
    return [f"L{li}H{h}" for li in range(layers) for h in range(heads)]


def _line(x, y, name: str, color: str, dash: str = "solid") -> dict:
    xs, ys = np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.float32)
    return {
        "type": "scatter",
        "x": xs,
        "y": ys,
        "name": name,
        "mode": "lines" if len(xs) > 1 else "lines+markers",  # one point still shows
        "line": {"color": color, "dash": dash, "width": 2.5},
        "hovertemplate": f"{name}<br>step %{{x}}<br>%{{y:.3f}}<extra></extra>",
    }


def curves(
    traces: list[dict],
    title: str,
    y_title: str,
    log_x: bool = False,
    y_range: Sequence[float] | None = None,
    mark: tuple[float, str] | None = None,
    chars: int = NARROW_TITLE,
) -> go.Figure:
    """Lines over training steps (legend under the plot); `mark` = (step, label): a dashed
    vertical line there, labelled at its foot; `chars`: title characters a line (a figure
    across the page: WIDE_TITLE)."""
    # the x axis is named in the title, as on the other training curves: an axis title
    # under the plot collides with the legend below it (layout checker, every viewport)
    x_name = "x: step, log scale" if log_x else "x: step"
    layout = base_layout(f"{title} ({x_name})", HEIGHT, chars)
    layout["xaxis"] = {"type": "log"} if log_x else {"rangemode": "nonnegative"}
    layout["yaxis"] = {"title": {"text": y_title}}
    if y_range is not None:
        layout["yaxis"]["range"] = list(y_range)
    layout["legend"] = {"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0}
    layout["margin"]["b"] = 60
    if mark is not None:
        step, label = mark
        x = float(np.log10(max(step, 1))) if log_x else float(step)
        line = {"color": MARK_COLOR, "dash": "dash", "width": 2}
        layout["shapes"] = [
            {
                "type": "line",
                "x0": step,
                "x1": step,
                "y0": 0,
                "y1": 1,
                "yref": "paper",
                "line": line,
            }
        ]
        layout["annotations"] = [
            {
                "x": x,
                "y": 0,
                "yref": "paper",
                "text": label,
                "showarrow": False,
                "xanchor": "left",
                "yanchor": "bottom",
                "bgcolor": "rgba(255,255,255,0.8)",
            }
        ]
    return fast_figure(traces, layout)


def in_context_figure(steps, first, repeat, phase: int | None) -> go.Figure:
    """The validation loss on the first copy's targets and on the repeated copy's, over training;
    the phase change marked when there was one."""
    traces = [
        _line(steps, first, "first copy (nothing to copy yet)", VAL_COLOR),
        _line(steps, repeat, "repeated copy (copy what followed)", TRAIN_COLOR),
    ]
    mark = None if phase is None else (phase, f"phase change, step {phase}")
    title = "Loss: a segment's first copy vs its repeat"
    return curves(traces, title, "loss (nats)", mark=mark, chars=WIDE_TITLE)


def scores_figure(steps, previous: np.ndarray, induction: np.ndarray) -> go.Figure:
    """Each head's previous-token score (dotted) and induction score (solid) over training;
    previous and induction (S, L, H). The legend names each head once (its colour; the title
    says which line is which): two entries a head took three rows on a laptop, and a legend
    that tall pushed the plot up under it (its x ticks under the legend)."""
    layers, heads = previous.shape[1:]
    traces = []
    for i, name in enumerate(head_names(layers, heads)):
        li, h = divmod(i, heads)
        color = HEAD_COLORS[i % len(HEAD_COLORS)]
        solid = _line(steps, induction[:, li, h], f"{name} induction", color)
        dotted = _line(steps, previous[:, li, h], f"{name} previous-token", color, "dot")
        solid.update(legendgroup=name, name=name)  # its hover still says "induction"
        dotted.update(legendgroup=name, showlegend=False)
        traces += [solid, dotted]
    title = "Head scores: induction (solid), previous-token (dotted)"
    return curves(traces, title, "share of attention", y_range=(0, 1.02))


def accuracy_figure(steps, train, val, log_x: bool, mark: tuple | None = None) -> go.Figure:
    """Training and validation accuracy on one chart (log steps once past step 0); `mark`:
    (step, label) of a marked step (validation passing 95 %)."""
    traces = [
        _line(steps, train, "training pairs", TRAIN_COLOR),
        _line(steps, val, "validation pairs (never trained on)", VAL_COLOR),
    ]
    title = "Accuracy: training vs validation"
    return curves(
        traces, title, "accuracy", log_x=log_x, y_range=(0, 1.02), mark=mark, chars=WIDE_TITLE
    )


def norm_figure(steps, norms, log_x: bool) -> go.Figure:
    """The weight norm over training (weight decay pulls it down once the rule is found)."""
    traces = [_line(steps, norms, "weight norm", TRAIN_COLOR)]
    return curves(traces, "Weight norm (all parameters)", "L2 norm", log_x=log_x)


def spectrum_figure(spectrum: np.ndarray, keys: list[int], step: int) -> go.Figure:
    """The embedding's Fourier spectrum per frequency k (bars), key frequencies named."""
    named = ", ".join(str(k) for k in keys[:6]) + (" …" if len(keys) > 6 else "")
    title = (
        f"Embedding's Fourier spectrum at step {step}: {len(keys)} frequencies hold 80 % "
        f"(k = {named})"
    )
    labels = [str(k) for k in range(len(spectrum))]
    fig = bar_chart(spectrum, labels, title, "norm", "frequency k")
    fig.update_traces(text=None)  # a number on each of ~27 bars is clutter
    return fig


def sink_figure(steps, shares: np.ndarray, bos: bool) -> go.Figure:
    """Each head's mean weight on position 0 over training; shares (S, L, H)."""
    layers, heads = shares.shape[1:]
    traces = [
        _line(steps, shares[:, li, h], name, HEAD_COLORS[i % len(HEAD_COLORS)])
        for i, name in enumerate(head_names(layers, heads))
        for li, h in [divmod(i, heads)]
    ]
    where = "the BOS token (position 0)" if bos else "position 0"
    title = f"Each head's attention on {where}"
    return curves(traces, title, "mean weight", y_range=(0, 1.02), chars=WIDE_TITLE)


def eviction_figure(losses: dict[str, float], window: int) -> go.Figure:
    """The loss of the targets past the window: full attention, the window, the window + the
    first token (bars)."""
    labels = ["full context", f"last {window} keys", f"last {window} + position 0"]
    title = "Loss past the window: evict position 0, or keep it"
    return bar_chart(np.array(list(losses.values())), labels, title, "loss (nats)")


def ablation_figure(losses: np.ndarray, base: float, picked: int | None) -> go.Figure:
    """The repeated copy's loss with each head zeroed (bars; `picked` highlighted) and without
    any (a dashed line)."""
    layers, heads = losses.shape
    title = "Repeated copy's loss with one head zeroed"
    fig = bar_chart(
        losses.ravel(),
        head_names(layers, heads),
        title,
        "loss (nats)",
        "head zeroed",
        highlight=picked,
    )
    fig.add_hline(y=base, line_dash="dash", line_color=MARK_COLOR)
    fig.add_annotation(
        x=1,
        xref="paper",
        xanchor="right",
        y=base,
        yanchor="bottom",
        showarrow=False,
        text=f"no head zeroed: {base:.2f}",
        bgcolor="rgba(255,255,255,0.8)",
    )
    return fig
