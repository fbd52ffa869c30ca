"""Heatmaps whose cells can be clicked: Plotly selects no heatmap cell on a click, so Streamlit's
`on_select` never hears of one (streamlit/streamlit#8760). `clickable_cells` puts an invisible
marker at the centre of every cell of a figure's first heatmap, its customdata the cell's (row,
column); a click selects the nearest marker, which `cell_of` reads back. The markers take over
the hover (the nearest one is hovered), so they carry the heatmap's hover label, value included;
a gap (NaN: a blank cell) has none."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

MARK = "clickable cells"  # the markers' trace's meta
MAX_CELLS = 48 * 48  # a larger map stays as it is: a marker a cell would add ~50 bytes each


def clickable_cells(fig: go.Figure) -> go.Figure:
    """A copy of `fig` with a clickable marker on each cell of its first heatmap (the figure
    unchanged when it has none, or more than MAX_CELLS cells)."""
    heat = next((t for t in fig.data if t.type == "heatmap"), None)
    if heat is None or heat.z is None:
        return fig
    z = np.asarray(heat.z, dtype=float)  # (rows, cols)
    rows, cols = z.shape[:2]
    if rows * cols > MAX_CELLS:
        return fig
    xs = list(heat.x) if heat.x is not None else list(range(cols))
    ys = list(heat.y) if heat.y is not None else list(range(rows))
    row, col = np.divmod(np.arange(rows * cols), cols)  # (rows · cols,) each
    value = z.ravel()
    gap = np.isnan(value)
    template = heat.hovertemplate or "%{y}, %{x}: %{z:.3g}<extra></extra>"
    out = go.Figure(fig)
    out.add_trace(
        go.Scatter(
            x=[xs[c] for c in col],
            y=[ys[r] for r in row],
            customdata=[  # (rows · cols, 3): plain lists, a gap's value None
                [int(r), int(c), None if g else float(v)]
                for r, c, v, g in zip(row, col, value, gap, strict=True)
            ],
            hovertemplate=template.replace("%{z", "%{customdata[2]"),
            hoverinfo=["none" if g else "all" for g in gap],
            mode="markers",
            marker={"size": 1, "opacity": 0},
            selected={"marker": {"opacity": 0}},
            unselected={"marker": {"opacity": 0}},
            showlegend=False,
            meta=MARK,  # static/cell_tap.js finds the maps by it: a tap picks a cell too
            xaxis=heat.xaxis,
            yaxis=heat.yaxis,
        )
    )
    out.update_layout(hoverdistance=-1)  # the nearest marker, however far: the clicked cell
    for axis, labels, count in ((heat.xaxis or "x", xs, cols), (heat.yaxis or "y", ys, rows)):
        low, high = _extent(labels, count)  # markers pad an axis's autorange: not past the map
        name = f"{axis[0]}axis{axis[1:]}"
        out.update_layout({name: {"autorangeoptions": {"minallowed": low, "maxallowed": high}}})
    return out


def _extent(labels: list, count: int) -> tuple[float, float]:
    """The heatmap's extent along an axis: its cells' outer edges (categories: −0.5 … n − 0.5;
    evenly spaced numbers: half a step beyond the first and the last)."""
    numbers = all(isinstance(v, int | float | np.number) for v in labels)
    if not numbers or count < 1:
        return -0.5, count - 0.5
    values = np.asarray(labels, dtype=float)
    step = abs(values[-1] - values[0]) / (count - 1) if count > 1 else 1.0
    return float(values.min() - step / 2), float(values.max() + step / 2)


def is_clickable(fig: go.Figure) -> bool:
    """Whether `fig` came from `clickable_cells` with its markers."""
    return any(getattr(trace, "meta", None) == MARK for trace in fig.data)


def cell_of(points: list[dict]) -> tuple[int, int] | None:
    """(row, column) of the first clicked cell among a selection's `points` (Streamlit's
    `selection.points` on a figure from `clickable_cells`), or None."""
    for point in points:
        data = point.get("customdata")
        if isinstance(data, dict):  # a typed array's row arrives as {"0": row, "1": column}
            data = [data.get("0"), data.get("1")]
        if isinstance(data, list | tuple) and len(data) >= 2 and None not in data[:2]:
            return int(data[0]), int(data[1])
    return None
