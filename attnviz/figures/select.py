"""Figures of the soft-select page: the key plane with the query, and weights vs temperature."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import fast_figure, line_chart
from attnviz.figures.fonts import titled

PLANE_LIMIT = 2.0
GRID_STEPS = 21  # invisible click targets, 0.2 apart (a click lands on the nearest)
PX_PER_UNIT = 80.0  # ~ a 430 px plot showing −2..2: how labels and markers compare in size
LABEL_FONT = 16.0  # px; room for lecture mode's larger labels
SWEEP_TITLE = "Weights as temperature T changes<br>(T → 0: hard select; T → ∞: mean)"
ROOM_ENOUGH = 0.5  # data units: more room than this counts as free (keeps "top center")
# The margins Plotly's automargin reaches at the base font (tick labels, axis titles, the
# legend), given up front: a query move draws each figure once instead of twice (issue 26:
# Streamlit draws a changed chart anew, and automargin then draws it again). Longer key names or
# a larger font (lecture mode) still grow them.
PLANE_MARGIN = {"l": 68, "r": 10, "b": 106}
SWEEP_MARGIN = {"l": 72, "r": 104, "b": 68}
BARS_MARGIN = {"l": 78, "r": 10, "b": 68}
PLACES = {  # Plotly textposition -> the direction it puts the label in, from the marker
    "top center": (0.0, 1.0),
    "bottom center": (0.0, -1.0),
    "middle right": (1.0, 0.0),
    "middle left": (-1.0, 0.0),
    "top right": (0.71, 0.71),
    "top left": (-0.71, 0.71),
    "bottom right": (0.71, -0.71),
    "bottom left": (-0.71, -0.71),
}


def _gap_to_box(points: np.ndarray, centre: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Distance from each point (n, 2) to an axis-aligned box (centre, half sizes)."""
    d = np.maximum(np.abs(points - centre) - half, 0.0)
    return np.sqrt((d**2).sum(axis=1))


def label_positions(
    points: np.ndarray,
    sizes: np.ndarray,
    avoid: np.ndarray,
    names: list[str] | None = None,
    px_per_unit: float = PX_PER_UNIT,
    font_px: float = LABEL_FONT,
) -> list[str]:
    """A textposition per point (n, 2): of the eight places around its marker (`sizes` (n,):
    marker diameters, px), the one whose label box keeps the most room to the other markers,
    the `avoid` points (m, 2; the query star) and the labels placed before it. A label with room
    everywhere stays on top. Labels are estimated boxes (len(name) × 0.6 em by 1.2 em)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    star = np.asarray(avoid, dtype=np.float64).reshape(-1, 2)
    radius = np.asarray(sizes, dtype=np.float64) / 2 / px_per_unit  # in data units
    names = names or ["label"] * len(pts)
    placed: list[tuple[np.ndarray, np.ndarray]] = []
    out = []
    for i, p in enumerate(pts):
        half = np.array([len(names[i]) * 0.3 * font_px, 0.6 * font_px]) / px_per_unit
        others = np.arange(len(pts)) != i
        best, best_room = "top center", -np.inf
        for place, (dx, dy) in PLACES.items():
            reach = radius[i] + 3 / px_per_unit  # the marker's edge plus a small gap
            centre = p + np.array([dx * (reach + half[0]), dy * (reach + half[1])])
            room = [_gap_to_box(pts[others], centre, half) - radius[others]]
            room.append(_gap_to_box(star, centre, half) - 10 / px_per_unit)
            room += [_box_gap(centre, half, c, h) for c, h in placed]
            clearance = min(ROOM_ENOUGH, *(float(np.min(r, initial=np.inf)) for r in room))
            if clearance > best_room + 1e-9:
                best, best_room = place, clearance
        dx, dy = PLACES[best]
        reach = radius[i] + 3 / px_per_unit
        placed.append((p + np.array([dx * (reach + half[0]), dy * (reach + half[1])]), half))
        out.append(best)
    return out


def _box_gap(c1: np.ndarray, h1: np.ndarray, c2: np.ndarray, h2: np.ndarray) -> np.ndarray:
    """Separation of two boxes (negative when they overlap)."""
    return np.array([float(np.max(np.abs(c1 - c2) - (h1 + h2)))])


def _key_dots(keys: np.ndarray, names: list[str], query: np.ndarray, weights: np.ndarray) -> dict:
    """The keys (m, 2) as dots sized by their weight (m,), labelled away from their neighbours."""
    sizes = (12 + 40 * weights).astype(np.float32)  # px, the marker grows with its weight
    lim = max(PLANE_LIMIT, float(np.abs(keys).max()) + 0.3)  # the plot shows −lim..lim
    return {
        "type": "scatter",
        "x": keys[:, 0].astype(np.float32),
        "y": keys[:, 1].astype(np.float32),
        "mode": "markers+text",
        "text": names,
        "textposition": label_positions(
            keys, sizes, np.asarray(query).reshape(1, 2), names, px_per_unit=320 / (2 * lim)
        ),
        "name": "keys",
        "marker": {"size": sizes, "color": "#3b5bdb"},
        "customdata": weights.astype(np.float32),
        "hovertemplate": "%{text}<br>key (%{x:.2f}, %{y:.2f})<br>"
        "weight %{customdata:.3f}<extra></extra>",
    }


def key_plane(
    keys: np.ndarray, names: list[str], query: np.ndarray, weights: np.ndarray
) -> go.Figure:
    """Keys as dots sized by their weight, the query as a star; click anywhere to move the query."""
    grid = np.linspace(-PLANE_LIMIT, PLANE_LIMIT, GRID_STEPS, dtype=np.float32)
    gx, gy = np.meshgrid(grid, grid)
    click_grid = {  # invisible but clickable: a selection returns its coordinates. SVG, 441
        # points: Streamlit draws a changed chart anew, and a new WebGL context cost 0.1 s a move
        # (1,681 SVG points 57 ms, 441 of them 21 ms, none 16 ms: Chromium, newPlot)
        "type": "scatter",
        "x": gx.ravel(),
        "y": gy.ravel(),
        "mode": "markers",
        "marker": {"size": 9, "opacity": 0},
        "showlegend": False,
        "name": "click to move the query",
        "hovertemplate": "move query to (%{x:.1f}, %{y:.1f})<extra></extra>",
    }
    key_dots = _key_dots(keys, names, query, weights)
    star = {
        "type": "scatter",
        "x": [float(query[0])],
        "y": [float(query[1])],
        "mode": "markers",
        "name": "query q",
        "marker": {"symbol": "star", "size": 20, "color": "#e8590c"},
        "hovertemplate": "query (%{x:.2f}, %{y:.2f})<extra></extra>",
    }
    lim = max(PLANE_LIMIT, float(np.abs(keys).max()) + 0.3)
    layout = {
        "title": {"text": "Keys (size = weight) and the query: click to move it"},
        "height": 430,
        "margin": {"t": 50, **PLANE_MARGIN},
        "clickmode": "event+select",
        "dragmode": False,
        "legend": {"orientation": "h", "y": -0.25},  # below: the plane keeps the width
        "xaxis": {"range": [-lim, lim], "title": {"text": "key / query dimension 1"}},
        "yaxis": {
            "range": [-lim, lim],
            "title": {"text": "key / query dimension 2"},
            "scaleanchor": "x",
        },
    }
    titled(layout, layout["title"]["text"], 40)  # the plane sits in half the page
    return fast_figure([click_grid, key_dots, star], layout)


def temperature_figure(
    temperatures: np.ndarray, sweep: np.ndarray, names: list[str], current: float
) -> go.Figure:
    """Each key's weight as the temperature goes from hard select (left) to the mean (right)."""
    fig = line_chart(
        temperatures,
        {n: sweep[:, i] for i, n in enumerate(names)},
        "",
        "temperature T (log scale)",
        "weight α",
        log_x=True,
    )
    guide = {"type": "line", "line": {"dash": "dot", "color": "#e8590c"}}
    shapes = [  # the current T (x in data units, y across the plot) and the uniform weight 1/m
        {**guide, "xref": "x", "yref": "paper", "x0": current, "x1": current, "y0": 0, "y1": 1},
        {
            **guide,
            "xref": "paper",
            "yref": "y",
            "x0": 0,
            "x1": 1,
            "y0": 1 / len(names),
            "y1": 1 / len(names),
            "line": {"dash": "dash", "color": "grey"},
        },
    ]
    notes = [
        {
            "x": float(np.log10(current)),
            "y": 1.02,
            "yref": "paper",
            "text": f"T = {current:g}",
            "showarrow": False,
        },
        {
            "x": 1.0,
            "xref": "paper",
            "y": 1 / len(names),
            "text": "1/m",
            "showarrow": False,
            "xanchor": "left",
        },
    ]
    layout = {**fig.layout.to_plotly_json(), "shapes": shapes, "annotations": notes}
    layout["margin"] = {**layout["margin"], **SWEEP_MARGIN}
    titled(layout, SWEEP_TITLE)  # full width: two lines, each short enough for a phone
    return fast_figure(list(fig.data), layout)
