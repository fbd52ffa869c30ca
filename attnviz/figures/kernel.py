"""Figures of the kernel-smoother page: data with the fitted f, one query's weights, the sorted
query × sample weight matrix, and the Mahalanobis metric ‖θ(x − x_s)‖ = 1 around the query.

f is NaN where it is undefined (no sample in reach, n(x) = 0): the 1-D curve breaks there (a
gap, never a drawn 0) and the 2-D heatmap leaves those cells blank; the titles say so."""

from __future__ import annotations

import math
import textwrap
from typing import Protocol

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import TITLE_CHARS
from attnviz.figures.base import fast_figure, heatmap
from attnviz.figures.fonts import retitled

BLUE, ORANGE, GREY = "#3b5bdb", "#e8590c", "#adb5bd"
COLUMN_CHARS = 26  # most characters a line of `retitle` (the fit's title lines: its scene's)


class Samples(Protocol):
    """The labelled samples a figure draws (attnviz.data.toy.ToyData has this shape)."""

    x_train: np.ndarray  # (n, J)
    y_train: np.ndarray  # (n,)
    x_val: np.ndarray
    y_val: np.ndarray
    classification: bool

    @property
    def dim(self) -> int: ...


# The margins Plotly's automargin reaches at the base font and a page's width (tick labels and
# axis titles, the legend's rows, a colour bar), given up front: a query move draws each figure
# once instead of twice (issue 26: Streamlit draws a changed chart anew, automargin then draws it
# again). A larger font (lecture mode) or a legend wrapped on a phone still grows them.
FIT_MARGIN = {1: {"l": 64, "r": 10, "b": 96}, 2: {"l": 76, "r": 92, "b": 124}}
WEIGHTS_MARGIN = {1: {"l": 78, "r": 10, "b": 68}, 2: {"l": 70, "r": 84, "b": 68}}
MATRIX_MARGIN = {"l": 76, "r": 98, "b": 74}


def _layout(
    title: str, x_title: str, y_title: str, height: int = 420, margin: dict | None = None
) -> dict:
    return {
        "title": {"text": title},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10} | (margin or {}),
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
        # below everything, in the figure's own bottom margin: Plotly reserves its rows there
        # before it places the x ticks and title, so they never meet however the entries wrap
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"},
        "clickmode": "event+select",
    }


def _points(x: np.ndarray, y: np.ndarray, name: str, **marker) -> dict:
    return {
        "type": "scatter",
        "x": x.astype(np.float32),
        "y": y.astype(np.float32),
        "mode": "markers",
        "name": name,
        "marker": marker,
        "hovertemplate": f"{name}<br>(%{{x:.2f}}, %{{y:.2f}})<extra></extra>",
    }


def retitle(fig: go.Figure, title: str) -> go.Figure:
    """Set a title of one or more lines (<br>) with room above the plot for every line; a line
    longer than COLUMN_CHARS wraps (the figures sit in page columns: the fit's gap note, one
    line of 40 characters, was cut in lecture mode)."""
    title = "<br>".join(in_lines(line, COLUMN_CHARS) for line in title.split("<br>"))
    lines = title.count("<br>") + 1
    fig.update_layout(
        title={"text": title, "yanchor": "top", "yref": "container", "pad": {"t": 26}},
        title_y=1.0,
        margin_t=30 + 32 * lines,  # a line of the title at lecture size is about 30 px
    )
    return fig


def in_lines(title: str, width: int = 34) -> str:
    """Wrap a long figure title at spaces into lines of at most `width` characters, so that it
    fits a narrow column (the words stay as they are: joining the lines gives the title back)."""
    return "<br>".join(textwrap.wrap(title, width, break_long_words=False))


def gap_note(undefined: int, overflow: int) -> str:
    """The fit's title suffix naming why it has gaps ("" when it has none)."""
    why = ["no sample in reach, f undefined"] if undefined else []
    why += ["f past the float32 range"] if overflow else []
    return f" (gaps: {'; '.join(why)})" if why else ""


def fit_1d(
    data: Samples,
    grid: np.ndarray,
    f: np.ndarray,
    query: float,
    ellipse: np.ndarray | None,
    note: str = "",
) -> go.Figure:
    """Samples, f over the input line (a gap where f is NaN), the query as a vertical line (and
    the metric's interval). grid (G, 1), f (G,); `note` ends the title (see `gap_note`)."""
    traces = [
        _points(data.x_train[:, 0], data.y_train, "training samples", color=BLUE, size=7),
        _points(data.x_val[:, 0], data.y_val, "validation samples", color=GREY, size=6),
        {
            "type": "scatter",
            "x": grid[:, 0],
            "y": f.astype(np.float32),
            "mode": "lines",
            "name": "f_θ(x)",
            "connectgaps": False,  # NaN (f undefined) breaks the line
            "line": {"color": ORANGE, "width": 3},
            "hovertemplate": "x %{x:.2f}<br>f %{y:.3f}<extra></extra>",
        },
    ]
    title = "Data and the fitted f_θ(x); click a point to make it the query"
    layout = _layout(title + note, "x", "y", margin=FIT_MARGIN[1])
    layout["shapes"] = _query_shapes(query, ellipse)
    return fast_figure(traces, layout)


def _query_shapes(query: float, ellipse: np.ndarray | None) -> list[dict]:
    """The query as a dotted vertical line, and the metric's interval shaded (1-D)."""
    shapes = [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": query,
            "x1": query,
            "y0": 0,
            "y1": 1,
            "line": {"dash": "dot", "color": ORANGE},
            "layer": "below",  # shapes above the traces would swallow clicks on the points
        }
    ]
    if ellipse is not None:  # in 1-D the "ellipse" is the interval |θ (x − x_s)| ≤ 1
        lo, hi = float(ellipse[:, 0].min()), float(ellipse[:, 0].max())
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": lo,
                "x1": hi,
                "y0": 0,
                "y1": 1,
                "fillcolor": ORANGE,
                "opacity": 0.08,
                "line": {"width": 0},
                "layer": "below",
            }
        )
    return shapes


def fit_2d(
    data: Samples,
    axes: list[np.ndarray],
    f: np.ndarray,
    query: np.ndarray,
    ellipse: np.ndarray | None,
    note: str = "",
) -> go.Figure:
    """f over the plane as a heatmap (blank cells where f is NaN), samples coloured by label, the
    query and its metric ellipse. f (len(axes[0]) · len(axes[1]),) laid out as meshgrid "ij";
    `note` ends the title (see `gap_note`)."""
    z = f.reshape(len(axes[0]), len(axes[1])).T.astype(np.float32)
    traces = [
        {
            "type": "heatmap",
            "x": axes[0].astype(np.float32),
            "y": axes[1].astype(np.float32),
            "z": z,
            "colorscale": "RdBu_r",
            "zmid": 0 if data.classification else None,
            "opacity": 0.75,
            "colorbar": {"title": {"text": "f_θ"}},
            "hoverinfo": "skip",  # the overlay below answers hover and clicks
        },
        _click_overlay(axes, f),
    ]
    traces += _samples_2d(data)
    traces.append(
        _points(
            np.array([query[0]]),
            np.array([query[1]]),
            "query x",
            symbol="star",
            size=18,
            color="black",
        )
    )
    if ellipse is not None:
        traces.append(_ellipse_trace(ellipse))
    title = "f_θ over the plane; click anywhere to move the query"
    layout = _layout(title + note, "x₁", "x₂", 480, FIT_MARGIN[2])
    layout["xaxis"]["range"] = [float(axes[0][0]), float(axes[0][-1])]
    layout["yaxis"].update(range=[float(axes[1][0]), float(axes[1][-1])])
    return fast_figure(traces, layout)


def _ellipse_trace(ellipse: np.ndarray) -> dict:
    """The metric ellipse ‖θ(x − x_s)‖ = 1 around the query: points (m, 2)."""
    return {
        "type": "scatter",
        "x": ellipse[:, 0].astype(np.float32),
        "y": ellipse[:, 1].astype(np.float32),
        "mode": "lines",
        "name": "‖θ(x − x_s)‖ = 1",
        "line": {"color": "black", "dash": "dash"},
        "hovertemplate": "metric ellipse<extra></extra>",
    }


def _samples_2d(data: Samples) -> list[dict]:
    """The training samples in the plane, one trace per class (or one for regression)."""
    groups = ((1.0, ORANGE), (-1.0, BLUE)) if data.classification else ((None, "black"),)
    traces = []
    for label, color in groups:
        pick = data.y_train == label if label is not None else np.ones(len(data.y_train), bool)
        name = f"samples y = {label:+.0f}" if label is not None else "samples"
        x = data.x_train[pick]
        traces.append(
            _points(
                x[:, 0], x[:, 1], name, color=color, size=7, line={"color": "white", "width": 1}
            )
        )
    return traces


def _click_overlay(axes: list[np.ndarray], f: np.ndarray) -> dict:
    """Invisible markers on the grid cells: a click on a heatmap alone selects nothing."""
    g1, g2 = np.meshgrid(axes[0], axes[1], indexing="ij")  # f is laid out the same way
    return {
        "type": "scatter",
        "x": g1.ravel().astype(np.float32),
        "y": g2.ravel().astype(np.float32),
        "customdata": f.astype(np.float32),
        "mode": "markers",
        "marker": {"opacity": 0, "size": 12},
        "showlegend": False,
        "name": "grid",
        "hovertemplate": "x₁ %{x:.2f}<br>x₂ %{y:.2f}<br>f %{customdata:.3f}<extra></extra>",
    }


def weights_title(normalised: bool, defined: bool) -> str:
    """The query-weight panel's title: it claims "sums to 1" only when that is true."""
    if not normalised:
        return "The query's weight α(x, x_s)/|S| on each sample (unnormalised: need not sum to 1)"
    if not defined:
        return (
            "The query's weights are all 0 — no sample in reach of this query: f is undefined here"
        )
    return "The query's weight α(x, x_s)/n(x) on each sample (sums to 1)"


def query_weights(
    data: Samples, weights: np.ndarray, normalised: bool = True, defined: bool = True
) -> go.Figure:
    """Each training sample's weight α(x, x_s)/n(x) (or α/|S|) for the chosen query: (n_train,).
    `defined`: the query has a sample in reach (n(x) > 0)."""
    w = weights.astype(np.float32)
    title = weights_title(normalised, defined)
    if data.dim == 1:
        trace = {
            "type": "bar",
            "x": data.x_train[:, 0],
            "y": w,
            "name": "weight",
            "width": 0.04,
            "marker": {"color": BLUE},
            "hovertemplate": "x_s %{x:.2f}<br>weight %{y:.4f}<extra></extra>",
        }
        return fast_figure(
            [trace],
            _layout(title, "sample x_s", "weight", 320, WEIGHTS_MARGIN[1]),
        )
    trace = _points(
        data.x_train[:, 0],
        data.x_train[:, 1],
        "samples",
        color=w,
        colorscale="Blues",
        size=(5 + 25 * w / max(float(w.max()), 1e-12)).astype(np.float32),
        showscale=True,
        line={"color": GREY, "width": 1},
    )
    trace["customdata"] = w
    trace["hovertemplate"] = "x_s (%{x:.2f}, %{y:.2f})<br>weight %{customdata:.4f}<extra></extra>"
    layout = _layout(title + "; size and colour", "x₁", "x₂", 380, WEIGHTS_MARGIN[2])
    return fast_figure([trace], layout)


MATRIX_TICKS = 12  # sample numbers per axis of the weight matrix: upright, they fit a phone


def weight_matrix(weights: np.ndarray, order: np.ndarray) -> go.Figure:
    """The training-query × sample weights, both sorted the same way (so locality shows as a band).

    Its picture is the band, not the sample numbers: each axis names every k-th sample (at most
    MATRIX_TICKS, in a font that reaches 14 px in lecture mode); hover names every cell."""
    w = weights[np.ix_(order, order)]
    labels = [str(i) for i in order]
    fig = heatmap(
        w,
        x_labels=labels,
        y_labels=labels,
        title="",
        x_title="sample s",
        y_title="query i",
        zmin=0.0,
    )
    shown = labels[:: math.ceil(len(labels) / MATRIX_TICKS)]
    fig.update_xaxes(tickvals=shown, ticktext=shown, tickfont_size=12)
    fig.update_yaxes(tickvals=shown, ticktext=shown, tickfont_size=12)
    fig.update_layout(height=max(460, min(40 + 9 * len(labels), 620)), margin=MATRIX_MARGIN)
    return retitled(fig, "Weights: training point (row) ×<br>sample (column), sorted", TITLE_CHARS)
