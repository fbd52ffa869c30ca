"""Plotly figure builders shared by every page: heatmaps, matrices with numbers, bars, lines.

Every figure has hover values and axis titles. Arrays are passed as float32 NumPy so Plotly
encodes them compactly. `export_config` is the toolbar configuration that downloads PNG or SVG.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

DIVERGING = "RdBu_r"
SEQUENTIAL = "Blues"
BASE_FONT = 14


def export_config(fmt: str = "png", filename: str = "attnviz", scale: int = 2) -> dict:
    """Plotly toolbar config: the camera button downloads `fmt` ("png" or "svg")."""
    fmt = fmt if fmt in ("png", "svg") else "png"
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": fmt, "filename": filename, "scale": scale},
        "modeBarButtonsToRemove": ["lasso2d"],
    }


def _labels(labels: Sequence[str] | None, n: int) -> list[str]:
    return [str(x) for x in labels] if labels is not None else [str(i) for i in range(n)]


def unique_labels(labels: Sequence[str]) -> list[str]:
    """Make repeated tokens distinct for a categorical axis ("the", "the" -> "the", "the·1")."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        count = seen.get(label, 0)
        seen[label] = count + 1
        out.append(label if count == 0 else f"{label}·{count}")
    return out


def fast_figure(data: list[dict], layout: dict) -> go.Figure:
    """A Figure from plain trace/layout dicts without Plotly's per-property validation.

    Validation costs ~10 ms a figure, too much for a page of 15 matrices that must rerun in
    ~100 ms; tests validate every builder's output once instead (tests/engine/test_plots.py).
    """
    for trace in (t for t in data if isinstance(t, dict)):  # plotly.js knows fewer names
        for holder in (trace, trace.get("marker") or {}):
            if isinstance(holder.get("colorscale"), str):
                holder["colorscale"] = _colorscale(holder["colorscale"])
    return go.Figure({"data": data, "layout": layout}, skip_invalid=False, _validate=False)


@functools.lru_cache(maxsize=32)
def _named_colorscale(name: str) -> tuple:
    from plotly.colors import get_colorscale

    return tuple(tuple(step) for step in get_colorscale(name))


def _colorscale(name: str) -> list:
    return [list(step) for step in _named_colorscale(name)]


def _margins(title: str, height: int | None = None) -> dict:
    layout = {"title": {"text": title}, "margin": {"l": 10, "r": 10, "t": 50, "b": 10}}
    if height:
        layout["height"] = height
    return layout


def heatmap_spec(
    matrix: np.ndarray,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    title: str = "",
    x_title: str = "key",
    y_title: str = "query",
    zmin: float | None = None,
    zmax: float | None = None,
    colorscale: str = SEQUENTIAL,
    show_numbers: bool = False,
    number_format: str = ".2f",
) -> tuple[dict, dict]:
    """(trace, layout) dicts of a heatmap; row 0 at the top, hover shows row, column and value."""
    z = np.asarray(matrix, dtype=np.float32)
    rows, cols = z.shape
    trace = {
        "type": "heatmap",
        "z": z,
        "x": unique_labels(_labels(x_labels, cols)),
        "y": unique_labels(_labels(y_labels, rows)),
        "zmin": zmin,
        "zmax": zmax,
        "colorscale": colorscale,
        "hovertemplate": f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>value: %{{z:.4f}}<extra></extra>",
    }
    if show_numbers:
        trace.update(texttemplate=f"%{{z:{number_format}}}", textfont={"size": BASE_FONT - 2})
    layout = _margins(title)
    layout["yaxis"] = {"autorange": "reversed", "title": {"text": y_title}, "type": "category"}
    layout["xaxis"] = {"title": {"text": x_title}, "type": "category", "side": "bottom"}
    return trace, layout


def heatmap(matrix: np.ndarray, *args, **kwargs) -> go.Figure:
    """A matrix as a heatmap (arguments as heatmap_spec)."""
    trace, layout = heatmap_spec(matrix, *args, **kwargs)
    return fast_figure([trace], layout)


def matrix_figure(
    matrix: np.ndarray,
    title: str,
    row_name: str = "row",
    col_name: str = "column",
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    diverging: bool = True,
) -> go.Figure:
    """A small matrix with every number printed in its cell and its shape in the title."""
    z = np.asarray(matrix, dtype=np.float64)
    finite = np.isfinite(z)
    bound = float(np.abs(z[finite]).max()) if finite.any() else 1.0
    bound = bound or 1.0
    trace, layout = heatmap_spec(
        np.where(finite, z, np.nan),
        x_labels=col_labels,
        y_labels=row_labels,
        title=f"{title}   [{z.shape[0]} × {z.shape[1]}]",
        x_title=col_name,
        y_title=row_name,
        zmin=-bound if diverging else 0.0,
        zmax=bound,
        colorscale=DIVERGING if diverging else SEQUENTIAL,
        show_numbers=True,
    )
    layout["annotations"] = [  # write "−∞" where a mask removed an entry
        {"x": trace["x"][c], "y": trace["y"][r], "text": "−∞", "showarrow": False}
        for r, c in zip(*np.nonzero(~finite), strict=True)
    ]
    layout["height"] = max(180, min(90 + 34 * z.shape[0], 600))
    return fast_figure([trace], layout)


def bar_chart(
    values: np.ndarray,
    labels: Sequence[str],
    title: str,
    y_title: str,
    x_title: str = "",
    y_range: tuple[float, float] | None = None,
    highlight: int | None = None,
) -> go.Figure:
    """Vertical bars with their value printed on top; `highlight` colours one bar."""
    vals = np.asarray(values, dtype=np.float32)
    colors = ["#3b5bdb"] * len(vals)
    if highlight is not None and 0 <= highlight < len(vals):
        colors[highlight] = "#e8590c"
    trace = {
        "type": "bar",
        "x": unique_labels([str(x) for x in labels]),
        "y": vals,
        "marker": {"color": colors},
        "text": [f"{v:.3g}" for v in vals],
        "textposition": "outside",
        "hovertemplate": "%{x}: %{y:.4f}<extra></extra>",
    }
    layout = _margins(title, 320)
    layout["yaxis"] = {"title": {"text": y_title}, "range": list(y_range) if y_range else None}
    layout["xaxis"] = {"title": {"text": x_title}, "type": "category"}
    return fast_figure([trace], layout)


def line_chart(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    x_title: str,
    y_title: str,
    log_x: bool = False,
    log_y: bool = False,
) -> go.Figure:
    """One line per named series over a shared x."""
    xs = np.asarray(x, dtype=np.float32)
    traces = [
        {
            "type": "scatter",
            "x": xs,
            "y": np.asarray(ys, dtype=np.float32),
            "mode": "lines",
            "name": name,
            "hovertemplate": f"{name}<br>{x_title}: %{{x:.4g}}<br>{y_title}: %{{y:.4f}}<extra></extra>",
        }
        for name, ys in series.items()
    ]
    layout = _margins(title, 340)
    layout["xaxis"] = {"title": {"text": x_title}, "type": "log" if log_x else "linear"}
    layout["yaxis"] = {"title": {"text": y_title}, "type": "log" if log_y else "linear"}
    return fast_figure(traces, layout)


def scale_fonts(fig: go.Figure, factor: float) -> go.Figure:
    """Enlarge every font of a figure (lecture mode on a projector)."""
    size = round(BASE_FONT * factor)
    fig.update_layout(font={"size": size}, title_font={"size": round(size * 1.25)})
    for trace in fig.data:
        if getattr(trace, "textfont", None) is not None and trace.textfont.size:
            trace.textfont.size = round(trace.textfont.size * factor)
    for ann in fig.layout.annotations or ():
        ann.font.size = size
    return fig
