"""Plotly figure builders shared by every page: heatmaps, matrices with numbers, bars, lines.

Every figure has hover values and axis titles. Arrays are passed as float32 NumPy so Plotly
encodes them compactly. `export_config` is the toolbar configuration that downloads PNG or SVG.
"""

from __future__ import annotations

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


def heatmap(
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
) -> go.Figure:
    """A matrix as a heatmap; row 0 at the top, hover shows row, column and value."""
    z = np.asarray(matrix, dtype=np.float32)
    rows, cols = z.shape
    x = unique_labels(_labels(x_labels, cols))
    y = unique_labels(_labels(y_labels, rows))
    trace = go.Heatmap(
        z=z,
        x=x,
        y=y,
        zmin=zmin,
        zmax=zmax,
        colorscale=colorscale,
        hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>value: %{{z:.4f}}<extra></extra>",
    )
    if show_numbers:
        trace.update(texttemplate=f"%{{z:{number_format}}}", textfont={"size": BASE_FONT - 2})
    fig = go.Figure(trace)
    fig.update_yaxes(autorange="reversed", title=y_title, type="category")
    fig.update_xaxes(title=x_title, type="category", side="bottom")
    fig.update_layout(title=title, margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


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
    finite = z[np.isfinite(z)]
    bound = float(np.abs(finite).max()) if finite.size else 1.0
    bound = bound or 1.0
    fig = heatmap(
        np.where(np.isfinite(z), z, np.nan),
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
    if not np.isfinite(z).all():  # write "−∞" where a mask removed an entry
        ys, xs = np.nonzero(~np.isfinite(z))
        xl = fig.data[0].x
        yl = fig.data[0].y
        for r, c in zip(ys, xs, strict=True):
            fig.add_annotation(x=xl[c], y=yl[r], text="−∞", showarrow=False)
    height = 90 + 34 * z.shape[0]
    fig.update_layout(height=max(180, min(height, 600)))
    return fig


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
    fig = go.Figure(
        go.Bar(
            x=unique_labels([str(x) for x in labels]),
            y=vals,
            marker_color=colors,
            text=[f"{v:.3g}" for v in vals],
            textposition="outside",
            hovertemplate="%{x}: %{y:.4f}<extra></extra>",
        )
    )
    fig.update_layout(title=title, margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=320)
    fig.update_yaxes(title=y_title, range=list(y_range) if y_range else None)
    fig.update_xaxes(title=x_title, type="category")
    return fig


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
    fig = go.Figure()
    xs = np.asarray(x, dtype=np.float32)
    for name, ys in series.items():
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=np.asarray(ys, dtype=np.float32),
                mode="lines",
                name=name,
                hovertemplate=f"{name}<br>{x_title}: %{{x:.4g}}<br>{y_title}: %{{y:.4f}}<extra></extra>",
            )
        )
    fig.update_layout(title=title, margin={"l": 10, "r": 10, "t": 50, "b": 10}, height=340)
    fig.update_xaxes(title=x_title, type="log" if log_x else "linear")
    fig.update_yaxes(title=y_title, type="log" if log_y else "linear")
    return fig


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
