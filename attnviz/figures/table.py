"""A figure's data as a table: the text alternative of a chart for a screen reader, or for
anyone who wants the exact values (the sidebar's "Figures as tables too").

- a heatmap: its rows down the side, its columns across (a grid of heatmaps: one table per
  panel, the panel's title first);
- bars and lines: one row per x, one column per trace (named by the trace's legend name);
- `number_slice`: the first columns of a heatmap whose builder asks for them in numbers (its
  meta's `numbers`: how many; `width`: the vectors' full width), shown under the figure
  whatever the sidebar says (a wide vector's cells are too narrow for their numbers).

Labels arrive HTML-escaped from the figure builders (a token "<b>" is "&lt;b&gt;"), so they are
unescaped here; the caller shows the table as data (st.dataframe), never as HTML. Tables are cut
at MAX_ROWS × MAX_COLUMNS, and the cut is said in the title, so a 512-token map costs bounded
memory and time.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

MAX_ROWS, MAX_COLUMNS = 200, 64
TAGS = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class FigureTable:
    """One table of a figure: what it holds (the trace's or panel's name) and its data."""

    title: str
    data: pd.DataFrame


def plain(label: object) -> str:
    """A label as plain text: tags (a ✓ in <b>) dropped, HTML entities unescaped."""
    return html.unescape(TAGS.sub("", str(label)))


def figure_tables(fig: go.Figure) -> list[FigureTable]:
    """The figure's data as tables (an empty list for a figure with no data to tabulate, such
    as an image)."""
    traces = [t for t in fig.data if getattr(t, "hoverinfo", None) not in ("skip", "none")]
    maps = [t for t in traces if t.type == "heatmap" and t.z is not None]
    if maps:
        return [_heatmap_table(t, i if len(maps) > 1 else None) for i, t in enumerate(maps)]
    series = [t for t in traces if t.type in ("bar", "scatter") and t.y is not None]
    return [_series_table(series)] if series else []


def _labels(values: Sequence | None, n: int) -> list[str]:
    if values is None:
        return [str(i) for i in range(n)]
    return [plain(v) for v in list(values)[:n]]


def _heatmap_table(trace, panel: int | None) -> FigureTable:
    z = np.asarray(trace.z, dtype=float)  # (rows, columns)
    if z.ndim == 1:
        z = z[None, :]
    rows, cols = z.shape
    shown = z[:MAX_ROWS, :MAX_COLUMNS]
    index = _unique(_labels(trace.y, rows)[:MAX_ROWS])
    columns = _unique(_labels(trace.x, cols)[:MAX_COLUMNS])
    data = pd.DataFrame(shown, index=index, columns=columns)
    title = "values" if panel is None else plain(trace.name or f"panel {panel + 1}")
    if (rows, cols) != shown.shape:
        title += f" (the first {shown.shape[0]} of {rows} rows, {shown.shape[1]} of {cols} columns)"
    return FigureTable(title, data)


def _series_table(series: list) -> FigureTable:
    frames = []
    for i, trace in enumerate(series):
        horizontal = getattr(trace, "orientation", None) == "h"
        values, keys = (trace.x, trace.y) if horizontal else (trace.y, trace.x)
        values = np.asarray(values, dtype=float).ravel()
        labels = _unique(_labels(keys, len(values)))
        name = plain(trace.name) if trace.name else f"series {i + 1}"
        frames.append(pd.Series(values, index=labels, name=name))
    data = pd.concat(frames, axis=1).iloc[:MAX_ROWS, :MAX_COLUMNS]
    data.columns = _unique([str(c) for c in data.columns])
    return FigureTable("values", data)


def _unique(labels: list[str]) -> list[str]:
    """Repeated labels made distinct by their position (a table's index must not repeat)."""
    seen = {label: labels.count(label) for label in labels}
    return [label if seen[label] == 1 else f"{label} ({i})" for i, label in enumerate(labels)]


def number_slice(fig: go.Figure, most: int | None = None) -> FigureTable | None:
    """The first `meta["numbers"]` columns (at most `most`) of the figure's heatmap, each value
    to 2 decimals as the small matrices write them (as text, so every cell reads alike), titled
    with what is sliced; None when the figure's builder asks for no slice."""
    meta = fig.layout.meta  # read first: every figure a page shows is asked, every rerun
    asked = meta.get("numbers") if isinstance(meta, dict) else None
    if not asked:
        return None
    count = min(asked, most or asked)
    maps = [t for t in fig.data if t.type == "heatmap" and t.z is not None]
    if len(maps) != 1:
        return None
    trace = maps[0]
    z = np.atleast_2d(np.asarray(trace.z, dtype=float))[:MAX_ROWS, :count]  # (rows, ≤ count)
    index = _unique(_labels(trace.y, len(z)))
    columns = _unique(_labels(trace.x, z.shape[1]))  # the dimensions' numbers
    text = [[f"{v:.2f}" if np.isfinite(v) else "" for v in row] for row in z]
    width = meta.get("width") or z.shape[1]
    title = f"In numbers: dims 0–{z.shape[1] - 1} of {width}"
    return FigureTable(title, pd.DataFrame(text, index=index, columns=columns))
