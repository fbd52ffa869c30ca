"""Plotly figure builders shared by every page: heatmaps, matrices with numbers, bars, lines.

Every figure has hover values and axis titles. Arrays are passed as float32 NumPy so Plotly
encodes them compactly. `export_config` is the toolbar configuration that downloads PNG or SVG.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import format_values, label_extent, token_axis
from attnviz.figures.fonts import (  # noqa: F401  (BASE_FONT, scale_fonts: re-exported)
    BASE_FONT,
    CELL_FONT,
    NARROW_TITLE,
    fit_cell_text,
    titled,
)
from attnviz.figures.lecture import scale_fonts  # noqa: F401  (re-exported)

DIVERGING = "RdBu_r"
SEQUENTIAL = "Blues"
BAR_COLOR, HIGHLIGHT_COLOR = "#3b5bdb", "#e8590c"  # blue and orange: apart under red-green CVD
MATRIX_WIDTH = 300  # px a small matrix is assumed to get (a page column) unless told


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


def base_layout(title: str, height: int | None = None, chars: int | None = None) -> dict:
    """Layout with the title (wrapped at `chars` a line, when given) and small margins."""
    layout = {"margin": {"l": 10, "r": 10, "t": 50, "b": 10}}
    if chars:
        titled(layout, title, chars)
    else:
        layout["title"] = {"text": title}
    if height:
        layout["height"] = height
    return layout


ROWS_PX = 300  # px of row labels a heatmap of the default height holds


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
    xs, ys = unique_labels(_labels(x_labels, cols)), unique_labels(_labels(y_labels, rows))
    trace = {
        "type": "heatmap",
        "z": z,
        "x": xs,
        "y": ys,
        "zmin": zmin,
        "zmax": zmax,
        "colorscale": colorscale,
        "hovertemplate": f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>"
        "value: %{z:.4f}<extra></extra>",
    }
    if show_numbers:
        trace.update(texttemplate=f"%{{z:{number_format}}}", textfont={"size": CELL_FONT})
    layout = base_layout(title)  # token axes: categories in order, every label up to 64
    layout["yaxis"] = token_axis(ys, True, autorange="reversed", title={"text": y_title})
    layout["xaxis"] = token_axis(xs, title={"text": x_title}, side="bottom")
    grow_for_rows(layout)
    return trace, layout


def grow_for_rows(layout: dict) -> None:
    """Give every shown y tick label its own line: past ROWS_PX of labels the default 450 px
    height would overprint them (56 kernel samples, 40 tokens), so the height grows."""
    y, x = layout["yaxis"], layout["xaxis"]
    rows_px = len(y["tickvals"]) * (y["tickfont"]["size"] + 3)
    if rows_px > ROWS_PX:
        below = label_extent(x.get("ticktext", x["categoryarray"])) + 60  # rotated x labels, title
        layout["height"] = max(layout.get("height") or 0, rows_px + layout["margin"]["t"] + below)


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
    font_scale: float = 1.0,
    width_px: int | None = None,
) -> go.Figure:
    """A small matrix with its numbers printed in the cells and its shape in the title.

    Numbers get as many decimals (2, 1, 0) as fit a cell of a `width_px` wide figure (default
    MATRIX_WIDTH) at `font_scale`; when none fit they are hidden (hover still shows them).
    scale_fonts refits them when lecture mode enlarges the font."""
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
    )
    layout["annotations"] = [  # write "−∞" where a mask removed an entry
        {"x": trace["x"][c], "y": trace["y"][r], "text": "−∞", "showarrow": False}
        for r, c in zip(*np.nonzero(~finite), strict=True)
    ]
    layout["height"] = max(180, min(90 + 34 * z.shape[0], 600))
    # plot width ≈ figure − row labels, axis title and colour bar (they grow with the font)
    fixed_px = 0.6 * BASE_FONT * max(len(s) for s in trace["y"]) + 110
    width = width_px or MATRIX_WIDTH
    cell_px = max(1.0, (width - fixed_px * font_scale) / z.shape[1])
    titled(layout, layout["title"]["text"], NARROW_TITLE)  # matrices sit in page columns
    layout["meta"].update(cell_px=round(cell_px, 1), width_px=width, fixed_px=round(fixed_px))
    trace["textfont"] = {"size": round(CELL_FONT * font_scale)}
    fit_cell_text(trace, cell_px)
    if trace["text"] is not None:  # its numbers say what a colour bar would (as lecture mode)
        trace["showscale"] = False
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
    colors = [BAR_COLOR] * len(vals)
    if highlight is not None and 0 <= highlight < len(vals):
        colors[highlight] = HIGHLIGHT_COLOR
    trace = {
        "type": "bar",
        "x": unique_labels([str(x) for x in labels]),
        "y": vals,
        "marker": {"color": colors},
        "text": format_values(vals, 3),  # never e-notation
        "textposition": "outside",
        "hovertemplate": "%{x}: %{y:.4f}<extra></extra>",
    }
    layout = base_layout(title, 320, NARROW_TITLE)  # bar charts often sit in page columns
    layout["yaxis"] = {"title": {"text": y_title}, "range": list(y_range) if y_range else None}
    layout["xaxis"] = token_axis(trace["x"], title={"text": x_title})  # every bar labelled
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
            "hovertemplate": f"{name}<br>{x_title}: %{{x:.4~f}}<br>"
            f"{y_title}: %{{y:.4f}}<extra></extra>",
        }
        for name, ys in series.items()
    ]
    layout = base_layout(title, 340)
    layout["xaxis"] = {"title": {"text": x_title}, "type": "log" if log_x else "linear"}
    layout["yaxis"] = {"title": {"text": y_title}, "type": "log" if log_y else "linear"}
    return fast_figure(traces, layout)
