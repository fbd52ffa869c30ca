"""Training curves: loss (train per step, validation per evaluation) and the metric, side by side."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import fast_figure
from attnviz.training.history import History

MAX_POINTS = 2000  # long runs are thinned so the figure stays light


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
        "mode": "lines",
        "xaxis": f"x{axis}",
        "yaxis": f"y{axis}",
        "line": {"color": color, "dash": dash},
        "hovertemplate": f"{name}<br>step %{{x}}<br>%{{y:.4f}}<extra></extra>",
    }


def curves_figure(history: History, metric_name: str, log_y: bool = False) -> go.Figure:
    """Left: training loss per step and validation loss; right: train/validation metric."""
    data = [
        _line(history.step, history.train_loss, "train loss (batch)", "", "#74c0fc"),
        _line(history.eval_step, history.val_loss, "validation loss", "", "#e8590c"),
        _line(
            history.eval_step, history.train_metric, f"train {metric_name}", "2", "#3b5bdb", "dot"
        ),
        _line(
            history.eval_step,
            history.val_metric,
            f"validation {metric_name}",
            "2",
            "#e8590c",
            "dot",
        ),
    ]
    layout = {
        "title": {"text": f"Loss and {metric_name} while training (x: step)"},
        "height": 320,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "xaxis": {"domain": [0, 0.46], "title": {"text": "step"}},
        "yaxis": {"title": {"text": "loss"}, "type": "log" if log_y else "linear"},
        "xaxis2": {"domain": [0.54, 1], "title": {"text": "step"}, "anchor": "y2"},
        "yaxis2": {"title": {"text": metric_name}, "anchor": "x2"},
        "legend": {"orientation": "h", "y": -0.25},
    }
    return fast_figure(data, layout)
