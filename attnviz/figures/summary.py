"""One line of plain text that says what a figure shows at its strongest, for a screen reader and
for anyone who cannot tell the colours apart: the largest weights of a heatmap (or of a grid of
them, each cell named by its panel), the largest bars of a bar chart, a curve's peak.

The line is plain text built from the figure's own labels: Plotly labels arrive HTML-escaped
(a token "<b>" is "&lt;b&gt;" in the figure), so they are unescaped here and the caller must
show the line as text, never as Markdown or HTML.
"""

from __future__ import annotations

import html
import re

import numpy as np
import plotly.graph_objects as go

MAX_CHARS = 200  # one line
LABEL_CHARS = 28  # a longer label is cut with "…"
TOP = 2  # cells or bars named
SUMS_TO_ONE = 0.02  # tolerance of "each row sums to 1"


def summary(fig: go.Figure) -> str | None:
    """The figure in one line (≤ MAX_CHARS), or None when it has nothing to rank (an image)."""
    traces = [t for t in fig.data if getattr(t, "hoverinfo", None) not in ("skip", "none")]
    maps = [t for t in traces if t.type == "heatmap" and t.z is not None]
    bars = [t for t in traces if t.type == "bar" and t.y is not None]
    lines = [t for t in traces if t.type == "scatter" and t.y is not None]
    if maps:
        line = heatmap_summary(maps)
    elif bars:
        line = bar_summary(bars)
    elif lines:
        line = scatter_summary(lines, fig.layout)
    else:
        return None
    return clip(line, MAX_CHARS) if line else None


def label(text) -> str:
    """A figure label as plain text: line breaks as spaces, entities unescaped, cut short."""
    plain = re.sub(r"<br\s*/?>", " ", str(text)).replace("\u200b", "")
    return clip(html.unescape(plain).strip(), LABEL_CHARS)


def clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


def number(value: float, weights: bool) -> str:
    """A weight with 2 decimals (3 below 0.1, so small weights still differ); else 3 digits."""
    if weights:
        return f"{value:.2f}" if value >= 0.095 else f"{value:.3f}"
    return f"{value:.3g}"


def panel_name(trace) -> str:
    """The panel a trace draws (a grid's "head 2"): its hover text's first line when that line is
    plain text, else its name, else ""."""
    first = (trace.hovertemplate or "").split("<br>")[0]
    if first and "%{" not in first:
        return label(first)
    return label(trace.name) if trace.name else ""


def _axis_labels(values, n: int, word: str) -> list[str]:
    if values is None or len(values) != n:
        return [f"{word} {i}" for i in range(n)]
    return [f"'{label(v)}'" for v in values]


def _cells(trace) -> tuple[np.ndarray, list[str], list[str]]:
    """(z as a float matrix, row labels, column labels) of one heatmap trace."""
    z = np.array(trace.z, dtype=np.float64)
    codes = trace.meta.get("weight_codes") if isinstance(trace.meta, dict) else None
    if codes:  # weights sent as bytes (figures.pretrained.compact_weights): decoded
        z = np.where(z == codes["blank"], np.nan, (z - codes["offset"]) / codes["steps"])
    if z.ndim == 1:
        z = z[None, :]
    rows = _axis_labels(trace.y, z.shape[0], "row")
    cols = _axis_labels(trace.x, z.shape[1], "column")
    return z, rows, cols


def _sums_to_one(z: np.ndarray, axis: int | None) -> bool:
    finite = np.isfinite(z)
    if axis is not None:
        used = finite.any(axis=1)
        if not used.any():
            return False
        return bool(np.allclose(np.nansum(z, axis=1)[used], 1.0, atol=SUMS_TO_ONE))
    return bool(finite.any() and abs(np.nansum(z) - 1.0) <= SUMS_TO_ONE)


def _strongest(trace) -> tuple[float, str] | None:
    """(weight, "row → column") of a trace's strongest cell; a map without axis labels (an image's
    patches) names the cell by its row and column instead."""
    z, rows, cols = _cells(trace)
    if not np.isfinite(z).any():
        return None
    r, c = np.unravel_index(int(np.nanargmax(np.where(np.isfinite(z), z, -np.inf))), z.shape)
    labelled = trace.x is not None and trace.y is not None
    return float(z[r, c]), f"{rows[r]} → {cols[c]}" if labelled else f"{rows[r]}, {cols[c]}"


def heatmap_summary(traces) -> str:
    """Weights (every value in [0, 1]): one map's strongest cells "row → column", a grid's
    strongest cell in each of its strongest panels, and what they sum to; other values: the
    largest and the smallest."""
    matrices = [_cells(trace)[0] for trace in traces]
    finite = np.concatenate([m[np.isfinite(m)] for m in matrices])
    if finite.size == 0:
        return ""
    if finite.min() < 0 or finite.max() > 1 + 1e-6:
        return _values_line(traces[int(np.argmax([np.nanmax(m) for m in matrices]))], finite)
    if len(traces) == 1:
        named = _top_cells(traces[0])
    else:
        best = [c + (panel_name(t),) for t in traces if (c := _strongest(t))]
        best.sort(key=lambda cell: -cell[0])  # stable: a tie keeps the first panel first
        named = [f"{panel}: {cell} {number(w, True)}" for w, cell, panel in best[:TOP]]
    line = f"Strongest weights{' (row → column)' if '→' in ''.join(named) else ''}: "
    line += "; ".join(named) if len(traces) > 1 else ", ".join(named)
    if all(_sums_to_one(m, axis=1) for m in matrices):
        return line + "; each row sums to 1."
    if all(_sums_to_one(m, axis=None) for m in matrices):
        return line + f"; {'each map sums' if len(matrices) > 1 else 'they sum'} to 1."
    return line + "."


def _top_cells(trace) -> list[str]:
    z, rows, cols = _cells(trace)
    flat = np.where(np.isfinite(z), z, -np.inf).ravel()
    named = []
    for index in np.argsort(-flat, kind="stable")[:TOP]:  # a tie: the first cell first
        r, c = divmod(int(index), z.shape[1])
        cell = f"{rows[r]} → {cols[c]}" if trace.x is not None else f"{rows[r]}, {cols[c]}"
        named.append(f"{cell} {number(float(flat[index]), True)}")
    return named


def _values_line(trace, finite: np.ndarray) -> str:
    z, rows, cols = _cells(trace)
    r, c = np.unravel_index(int(np.nanargmax(np.where(np.isfinite(z), z, -np.inf))), z.shape)
    where = f"row {rows[r]}, column {cols[c]}"
    return (
        f"Largest value {number(float(z[r, c]), False)} at {where}; "
        f"smallest {number(float(finite.min()), False)}."
    )


def bar_summary(traces) -> str:
    """The largest bars over every bar trace, by their labels; what they sum to when it is 1."""
    bars = []
    for trace in traces:
        ys = np.array(trace.y, dtype=np.float64).ravel()
        xs = _axis_labels(trace.x, len(ys), "bar")
        bars += [(float(y), x) for y, x in zip(ys, xs, strict=True) if np.isfinite(y)]
    if not bars:
        return ""
    bars.sort(key=lambda bar: -bar[0])  # stable: a tie keeps the first bar first
    values = np.array([y for y, _ in bars])
    weights = bool(values.min() >= 0 and values.max() <= 1 + 1e-6)
    named = ", ".join(f"{x} {number(y, weights)}" for y, x in bars[:TOP])
    line = f"Largest bars: {named}"
    if weights and abs(values.sum() - 1.0) <= SUMS_TO_ONE:
        return line + "; the bars sum to 1."
    return line + "."


def scatter_summary(traces, layout: go.Layout | None = None) -> str:
    """Each curve's peak (its highest point and where) and each set of points' count. A name that
    two curves share (one variant's loss and accuracy in two panels) is told apart by its
    panel's y-axis title."""
    parts, names = [], [trace.name for trace in traces]
    for trace in traces:
        ys = np.array(trace.y, dtype=np.float64).ravel()
        if not np.isfinite(ys).any():
            continue
        name = label(trace.name) if trace.name else "the curve"
        if trace.name and names.count(trace.name) > 1 and layout is not None:
            name += _axis_title(layout, trace.yaxis)
        if "lines" in (trace.mode or "lines"):
            i = int(np.nanargmax(np.where(np.isfinite(ys), ys, -np.inf)))
            x = trace.x[i] if trace.x is not None and len(trace.x) == len(ys) else i
            at = number(float(x), False) if isinstance(x, int | float | np.number) else label(x)
            parts.append(f"{name} peaks at {number(float(ys[i]), False)} (x = {at})")
        else:
            parts.append(f"{int(np.isfinite(ys).sum())} {name}")
    parts.sort(key=lambda part: " peaks at " not in part)  # curves first, then point sets
    return "; ".join(parts[:3]) + "." if parts else ""


def _axis_title(layout: go.Layout, axis: str | None) -> str:
    """', <the y axis's title>' of a trace's y axis ('y', 'y2', …), or '' without one."""
    found = layout[f"yaxis{(axis or 'y')[1:]}"]
    text = found.title.text if found is not None and found.title is not None else None
    return f", {label(text)}" if text else ""
