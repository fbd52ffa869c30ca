"""The real ViT's artifact test as a scatter: every patch of a photo at (its share of the class
token's attention, its norm), both as multiples of a typical patch, with the two thresholds as
dashed lines. Artifact tokens (both large) sit in the top right corner, drawn in orange; the rest
in blue (apart under red-green colour blindness)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import BAR_COLOR, HIGHLIGHT_COLOR, fast_figure
from attnviz.figures.fonts import titled


def _points(share: np.ndarray, norm: np.ndarray, picked: np.ndarray, name: str, colour: str):
    """One scatter trace of the patches in `picked` (flat indices), hover: patch, row, column."""
    grid = share.shape[-1]
    rows, cols = np.divmod(picked, grid)
    return {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "x": share.ravel()[picked].astype(np.float32),
        "y": norm.ravel()[picked].astype(np.float32),
        "customdata": np.stack([picked, rows, cols], -1),
        "marker": {"color": colour, "size": 9 if name.startswith("artifact") else 6},
        "hovertemplate": "patch %{customdata[0]} (row %{customdata[1]}, column "
        "%{customdata[2]})<br>attention %{x:.1f} × even<br>norm %{y:.2f} × median<extra></extra>",
    }


def artifact_scatter(
    share: np.ndarray, norm: np.ndarray, found: tuple[int, ...], limits: tuple[float, float]
) -> go.Figure:
    """share, norm (g, g): × an even share and × the median norm; found: the artifact patches;
    limits: (share, norm) thresholds."""
    every = np.arange(share.size)
    artifact = np.asarray(found, dtype=int)
    rest = np.setdiff1d(every, artifact)
    data = [_points(share, norm, rest, "patch", BAR_COLOR)]
    if artifact.size:
        data.append(_points(share, norm, artifact, "artifact token", HIGHLIGHT_COLOR))
    top_x = max(float(share.max()), limits[0]) * 1.1
    top_y = max(float(norm.max()), limits[1]) * 1.1
    dashed = {"dash": "dash", "color": "#868e96"}
    layout = {
        "height": 360,
        "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        "xaxis": {
            "title": {"text": "class token's attention (× an even share)"},
            "range": [0, top_x],
        },
        "yaxis": {"title": {"text": "norm (× the median patch's)"}, "range": [0, top_y]},
        "legend": {"orientation": "h", "y": -0.25},
        "shapes": [
            {
                "type": "line",
                "x0": limits[0],
                "x1": limits[0],
                "y0": 0,
                "y1": top_y,
                "line": dashed,
            },
            {
                "type": "line",
                "x0": 0,
                "x1": top_x,
                "y0": limits[1],
                "y1": limits[1],
                "line": dashed,
            },
        ],
    }
    titled(layout, f"Attention vs norm: {len(found)} artifacts")
    return fast_figure(data, layout)
