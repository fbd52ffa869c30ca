"""Training curves side by side: loss (train per step, validation per evaluation), the metric."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import fast_figure

MAX_POINTS = 2000  # long runs are thinned so the figure stays light
# companions' curves beside the run's (train blue, validation orange): Okabe–Ito's bluish green
# and reddish purple, apart from those under simulated deuteranopia and protanopia
COMPANION_COLORS = ("#009e73", "#cc79a7")
# the panels' gap (0.14 of the width) keeps the loss panel's last step label off the metric's
# first on a narrow stage; STEP_TICKS labels at most per panel
STEP_TICKS = 4
NARROW_LAYOUT = {  # attnviz.figures.stage: two panels of about 120 px each
    "xaxis": {"nticks": 3},
    "xaxis2": {"nticks": 3},
    "yaxis2": {"title": {"text": ""}},
}
TRAIN_LOSS_COLOR, TRAIN_METRIC_COLOR, VALIDATION_COLOR = "#74c0fc", "#3b5bdb", "#e8590c"


class Curves(Protocol):
    """A run's numbers by step (attnviz.training.history.History has this shape)."""

    step: list[int]
    train_loss: list[float]
    eval_step: list[int]
    val_loss: list[float]
    train_metric: list[float]
    val_metric: list[float]
    extra: list[dict[str, float]]


def _thin(x: list, y: list) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.float32)
    if len(xs) > MAX_POINTS:
        pick = np.linspace(0, len(xs) - 1, MAX_POINTS).astype(int)
        xs, ys = xs[pick], ys[pick]
    return xs, ys


def _line(x, y, name: str, axis: str, color: str, dash: str = "solid") -> dict:
    xs, ys = _thin(x, y)
    return {
        "type": "scatter",
        "x": xs,
        "y": ys,
        "name": name,
        "mode": "lines" if len(xs) > 1 else "markers",  # one point: a line would not show
        "xaxis": f"x{axis}",
        "yaxis": f"y{axis}",
        "line": {"color": color, "dash": dash},
        "hovertemplate": f"{name}<br>step %{{x}}<br>%{{y:.4f}}<extra></extra>",
    }


def companions(history: Curves) -> list[str]:
    """Names of the other models a run scores beside its own (extra numbers "<name> val_loss"
    and "<name> val_metric", e.g. the CNN trained beside a ViT)."""
    names = {k.rsplit(" ", 1)[0] for ex in history.extra for k in ex if k.endswith(" val_loss")}
    return sorted(names)


def _companion_lines(history: Curves, metric_name: str) -> list[dict]:
    """Each companion's validation loss and metric, dashed, in its own colour."""
    out = []
    for name, color in zip(companions(history), COMPANION_COLORS, strict=False):
        steps = [s for s, ex in zip(history.eval_step, history.extra, strict=True) if ex]
        values = [ex for ex in history.extra if ex]
        for what, axis in (("val_loss", ""), ("val_metric", "2")):
            label = f"{name} validation {'loss' if axis == '' else metric_name}"
            ys = [ex.get(f"{name} {what}", float("nan")) for ex in values]
            out.append(_line(steps, ys, label, axis, color, "dash"))
    return out


def _step_axis(domain: list[float]) -> dict:
    """An x axis of steps, from 0 (one evaluation at step 0: not −1…1), with at most 4 short
    labels (1k, 1.5k) that stay upright: in a third of a 1280 px stage Plotly turned five
    labels of "1000" on end (issue 53). Untitled: the figure's title says "x: step", and a
    "step" under each panel sat on the legend's first row (8 px into it at 700 px wide, across
    "ViT train loss" on a phone)."""
    return {
        "domain": domain,
        "rangemode": "nonnegative",
        "nticks": STEP_TICKS,
        "tickangle": 0,
        "tickformat": "~s",
    }


def _stage_legend(own: str, metric_name: str, others: list[str]) -> dict[str, str | None]:
    """The legend on a stage, where four long names take four rows: the panels' axes say loss
    and metric, so it says train (per batch), train and validation (one entry for both), and
    one entry for each companion's two validation curves (the CNN's took two rows at L7 s3)."""
    legend: dict[str, str | None] = {
        f"{own}train loss (batch)": f"{own}train (batch)",
        f"{own}validation loss": f"{own}validation",
        f"{own}train {metric_name}": f"{own}train",
        f"{own}validation {metric_name}": None,
    }
    for name in others:
        legend |= {f"{name} validation loss": f"{name} validation"}
        legend |= {f"{name} validation {metric_name}": None}
    return legend


def curves_figure(
    history: Curves,
    metric_name: str,
    log_y: bool = False,
    model_name: str = "",
    eval_every: int | None = None,
) -> go.Figure:
    """Left: training loss per step and validation loss; right: train/validation metric; with
    the validation curves of any companion model (see `companions`) beside them. `model_name`
    prefixes the run's own curves when there are companions to tell them from. Before the first
    evaluation the metric's panel says when it comes (`eval_every`: steps between evaluations)."""
    own = f"{model_name} " if model_name else ""
    data = [
        _line(history.step, history.train_loss, f"{own}train loss (batch)", "", TRAIN_LOSS_COLOR),
        _line(history.eval_step, history.val_loss, f"{own}validation loss", "", VALIDATION_COLOR),
        _line(
            history.eval_step,
            history.train_metric,
            f"{own}train {metric_name}",
            "2",
            TRAIN_METRIC_COLOR,
            "dot",
        ),
        _line(
            history.eval_step,
            history.val_metric,
            f"{own}validation {metric_name}",
            "2",
            VALIDATION_COLOR,
            "dot",
        ),
        *_companion_lines(history, metric_name),
    ]
    layout = {
        "title": {"text": f"Loss and {metric_name} while training (x: step)"},
        "height": 320,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "xaxis": _step_axis([0, 0.43]),
        "yaxis": {"title": {"text": "loss"}, "type": "log" if log_y else "linear"},
        "xaxis2": _step_axis([0.57, 1]) | {"anchor": "y2"},
        "yaxis2": {"title": {"text": metric_name}, "anchor": "x2"},
        "legend": {"orientation": "h", "y": -0.25},
        "meta": {"stage_legend": _stage_legend(own, metric_name, companions(history))},
    }
    layout["meta"]["narrow"] = NARROW_LAYOUT  # on a narrow stage (the title names the metric)
    if metric_name != "R²":  # accuracy, exact match: shares, on 0–100 % (not −1…1 at 0 %)
        layout["yaxis2"] |= {"range": [-0.02, 1.02], "tickformat": ".0%"}
    if not history.eval_step:
        _no_metric_yet(layout, metric_name, history.step, eval_every)
    return fast_figure(data, layout)


def _no_metric_yet(
    layout: dict, metric_name: str, steps: list[int], eval_every: int | None
) -> None:
    """The metric's panel before the first evaluation: a note saying when it comes, over axes
    from step 0 to the next evaluation (Plotly's empty axes are −1…1)."""
    when = f"every {eval_every:,} steps" if eval_every else "once it is evaluated"
    note = f"{metric_name.capitalize()} appears<br>after the first evaluation,<br>{when}"
    layout["yaxis2"].setdefault("range", [0, 1])
    layout["xaxis2"] |= {"range": [0, max([*steps[-1:], eval_every or 1])]}
    layout["annotations"] = [
        {
            "text": note,
            "xref": "x2 domain",
            "yref": "y2 domain",
            "x": 0.5,
            "y": 0.5,
            "showarrow": False,
        }
    ]
