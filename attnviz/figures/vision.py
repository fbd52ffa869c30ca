"""Vision figures: an image cut into numbered patches, attention drawn over images (one panel per
layer and head, DINO-style), mean attention distance per layer and head, and its course in
training.

Images are (C, H, W) arrays in [0, 1]: one channel is drawn in grey (ink light on dark), three as
colour. An attention map is a (g, g) grid over the patches, drawn as a translucent orange layer
whose cells cover their patches exactly (a cell per patch, not resampled), so a bright cell is the
patch that was looked at. Each panel is coloured 0 to its own largest weight (said in the title);
hovering a cell gives the weight itself.
"""

from __future__ import annotations

import base64
import functools
import html
import io
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import fast_figure
from attnviz.figures.fonts import NARROW_TITLE, titled

# transparent where nothing is looked at, at most 0.7 opaque, so the image shows through
OVERLAY = [[0.0, "rgba(255,120,0,0)"], [0.3, "rgba(255,120,0,0.2)"], [1.0, "rgba(255,80,0,0.7)"]]
GREY = [[0.0, "#000000"], [1.0, "#ffffff"]]
LABEL_PATCHES_MAX = 10  # patch numbers are written on grids up to 10 × 10
# title line of the patch grid, a narrow column (216 px at 1280 in lecture mode, where
# scale_fonts narrows it to its 16-character floor): "Image 0 (a bottom right)" was cut at 30
PATCH_TITLE_CHARS = 20
TITLE_PX, NAME_PX, GAP_PX = 80, 22, 14


@dataclass(frozen=True)
class Panel:
    """One small picture: an image, optionally a map over it, a name, and a box to outline."""

    image: np.ndarray  # (C, H, W) in [0, 1]
    name: str
    attention: np.ndarray | None = None  # (g, g) over the patches, or (H, W) per pixel
    box: tuple[float, float, float, float] | None = None  # x0, y0, x1, y1 in pixels
    detail: str = ""  # said after the name in the hover only (the name above a panel is short)


def image_trace(image: np.ndarray, n: str = "") -> dict:
    """The image on axes x{n}/y{n}: grey for one channel, colour for three."""
    axes = {"xaxis": f"x{n}", "yaxis": f"y{n}", "hoverinfo": "skip"}
    if image.shape[0] == 1:
        z = np.asarray(image[0], dtype=np.float32)
        return {
            "type": "heatmap",
            "z": z,
            "zmin": 0,
            "zmax": 1,
            "colorscale": GREY,
            "showscale": False,
            **axes,
        }
    rgb = (np.clip(np.transpose(image, (1, 2, 0)), 0, 1) * 255).astype(np.uint8)  # (H, W, 3)
    return {"type": "image", "source": png_data_uri(rgb), **axes}


def png_data_uri(rgb: np.ndarray) -> str:
    """An (H, W, 3) uint8 image as a PNG data URI: a few hundred bytes for a 32 × 32 picture.
    Encoded once per picture (keyed by its pixels): a page's panels and reruns repeat images."""
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    return _png_uri(rgb.tobytes(), rgb.shape)


@functools.lru_cache(maxsize=32)  # a 224-px photo: 150 KB of key and ~100 KB of URI
def _png_uri(pixels: bytes, shape: tuple[int, ...]) -> str:
    from PIL import Image

    rgb = np.frombuffer(pixels, dtype=np.uint8).reshape(shape)
    out = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def overlay_trace(attention: np.ndarray, size: int, n: str = "", name: str = "") -> dict:
    """A (g, g) map stretched over a size-pixel image, each cell exactly over its patch."""
    g = attention.shape[-1]
    cell = size / g
    top = float(attention.max()) or 1.0
    return {
        "type": "heatmap",
        "z": np.asarray(attention, dtype=np.float32),
        "x0": (cell - 1) / 2,
        "dx": cell,
        "y0": (cell - 1) / 2,
        "dy": cell,
        "zmin": 0,
        "zmax": top,
        "colorscale": OVERLAY,
        "showscale": False,
        "xaxis": f"x{n}",
        "yaxis": f"y{n}",
        "hovertemplate": f"{html.escape(name, quote=False)}<br>weight %{{z:.3f}}<extra></extra>",
    }


def _image_axes(size: int, domain_x: tuple, domain_y: tuple, n: str) -> tuple[dict, dict]:
    common = {"showticklabels": False, "showgrid": False, "zeroline": False, "ticks": ""}
    common["constrain"] = "domain"  # the picture keeps its range (a stage squares its domain)
    x = {**common, "range": [-0.5, size - 0.5], "domain": list(domain_x), "anchor": f"y{n}"}
    y = {
        **common,
        "range": [size - 0.5, -0.5],
        "domain": list(domain_y),
        "anchor": f"x{n}",
        "scaleanchor": f"x{n}",
    }
    return x, y


def panels_figure(
    panels: list[Panel],
    columns: int,
    title: str,
    side_px: int = 150,
    headers: tuple[list[str], list[str]] | None = None,
) -> go.Figure:
    """Small pictures in a grid, `columns` a row, each `side_px` square with its name above; or,
    with `headers` (column names, row names), the column names above the first row and the row
    names at the left instead (a layer × head grid). Hovering a map gives the panel's name."""
    rows = (len(panels) + columns - 1) // columns
    row_px = NAME_PX + side_px + GAP_PX
    area = rows * row_px
    width = max(columns * (side_px + GAP_PX), 300)
    data, shapes = [], []
    notes = _header_notes(headers, columns, rows, row_px, area) if headers else []
    layout: dict = {
        "height": TITLE_PX + area + 10,
        "width": width if columns <= 2 else None,
        "margin": {"l": 34 if headers else 10, "r": 10, "t": TITLE_PX, "b": 10},
        "plot_bgcolor": "rgba(0,0,0,0)",
    }
    for i, panel in enumerate(panels):
        r, c = divmod(i, columns)
        n = "" if i == 0 else str(i + 1)
        size = panel.image.shape[-1]
        dx = (c / columns, (c + 1) / columns - GAP_PX / width)
        top = r * row_px + NAME_PX
        dy = (1 - (top + side_px) / area, 1 - top / area)
        layout[f"xaxis{n}"], layout[f"yaxis{n}"] = _image_axes(size, dx, dy, n)
        data.append(image_trace(panel.image, n))
        if panel.attention is not None:
            name = f"{panel.name} {panel.detail}".strip()
            data.append(overlay_trace(panel.attention, size, n, name))
        if panel.box is not None:
            shapes.append(_box_shape(panel.box, n))
        if not headers:
            notes.append(_note(panel.name, sum(dx) / 2, dy[1]))
    layout["annotations"], layout["shapes"] = notes, shapes
    if not headers:  # a stage may lay the panels out again for its room (figures.stage)
        layout["meta"] = {"panels": {"count": len(panels), "name_px": NAME_PX, "gap_px": GAP_PX}}
    if layout["width"] is None:
        del layout["width"]
    titled(layout, title)
    return fast_figure(data, layout)


def _box_shape(box: tuple[float, float, float, float], n: str) -> dict:
    """An outline of `box` (x0, y0, x1, y1 in pixels) on axes x{n}/y{n}."""
    x0, y0, x1, y1 = box
    return {
        "type": "rect",
        "xref": f"x{n}",
        "yref": f"y{n}",
        "x0": x0,
        "y0": y0,
        "x1": x1,
        "y1": y1,
        "line": {"color": "#22b8cf", "width": 2},
    }


def _note(text: str, x: float, y: float, **extra) -> dict:
    """A label at paper (x, y), centred above that point unless told otherwise."""
    return {
        "text": html.escape(text, quote=False),
        "x": x,
        "y": y,
        "xref": "paper",
        "yref": "paper",
        "xanchor": "center",
        "yanchor": "bottom",
        "showarrow": False,
        **extra,
    }


def _header_notes(
    headers: tuple[list[str], list[str]], columns: int, rows: int, row_px: int, area: int
) -> list[dict]:
    """Column names above the first row, row names (turned) left of each row."""
    column_names, row_names = headers
    top = 1 - NAME_PX / area
    notes = [_note(name, (c + 0.5) / columns, top) for c, name in enumerate(column_names)]
    for r, name in enumerate(row_names[:rows]):
        middle = 1 - (r * row_px + NAME_PX + (row_px - NAME_PX - GAP_PX) / 2) / area
        notes.append(_note(name, 0, middle, xanchor="right", yanchor="middle", textangle=-90))
    return notes


def patch_grid_figure(image: np.ndarray, patch: int, title: str) -> go.Figure:
    """The image with its patch grid drawn and each patch's index (the token's position)."""
    size = image.shape[-1]
    g = size // patch
    lines = _grid_lines(g, patch, size)
    notes = _patch_numbers(g, patch) if g <= LABEL_PATCHES_MAX else []
    centres = (np.arange(g, dtype=np.float32) + 0.5) * patch - 0.5
    click = {  # one faint marker per patch: clicking it picks that patch as the query
        "type": "scatter",
        "mode": "markers",
        "x": np.tile(centres, g),
        "y": np.repeat(centres, g),
        "customdata": np.arange(g * g),
        "marker": {"size": max(6, min(28, 300 // g)), "opacity": 0.01, "symbol": "square"},
        "hovertemplate": "patch %{customdata}: click to make it the query<extra></extra>",
        "showlegend": False,
    }
    x, y = _image_axes(size, (0, 1), (0, 1), "")
    layout = {
        "height": 380,
        "width": 380,
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        "xaxis": x,
        "yaxis": y,
        "shapes": lines,
        "annotations": notes,
    }
    titled(layout, title, PATCH_TITLE_CHARS)
    return fast_figure([image_trace(image), click], layout)


def _grid_lines(g: int, patch: int, size: int) -> list[dict]:
    """The g + 1 vertical and g + 1 horizontal lines between patches, in pixel coordinates."""
    return [
        {
            "type": "line",
            "x0": a,
            "x1": b,
            "y0": c,
            "y1": d,
            "line": {"color": "#22b8cf", "width": 1},
        }
        for k in range(g + 1)
        for a, b, c, d in (
            (k * patch - 0.5, k * patch - 0.5, -0.5, size - 0.5),
            (-0.5, size - 0.5, k * patch - 0.5, k * patch - 0.5),
        )
    ]


def _patch_numbers(g: int, patch: int) -> list[dict]:
    """Each patch's index (row by row) written in its top left corner."""
    notes = []
    for i in range(g * g):
        r, c = divmod(i, g)
        notes.append(
            {
                "text": str(i),
                "x": c * patch - 0.5 + 0.08 * patch,
                "y": r * patch - 0.5,
                "xanchor": "left",
                "yanchor": "top",
                "showarrow": False,
                "font": {"color": "#ffd43b", "size": 11},
            }
        )
    return notes


def distance_figure(distance: np.ndarray, uniform: float, title: str) -> go.Figure:
    """Mean attention distance (L, H) in pixels: a dot per head at each layer (ViT paper, Fig. 7),
    and the distance of attention spread evenly over the image for scale."""
    layers, heads = distance.shape
    names = [f"layer {i}" for i in range(layers)]
    data = [
        {
            "type": "scatter",
            "mode": "markers",
            "x": names,
            "y": distance[:, h].astype(np.float32),
            "name": f"head {h}",
            "marker": {"size": 12},
            "hovertemplate": f"head {h}<br>%{{x}}<br>%{{y:.1f}} px<extra></extra>",
        }
        for h in range(heads)
    ]
    data.append(
        {
            "type": "scatter",
            "mode": "lines",
            "x": [names[0], names[-1]],
            "y": [uniform, uniform],
            "name": "attention spread evenly",
            "line": {"dash": "dash", "color": "#868e96"},
        }
    )
    layout = {
        "height": 340,
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        "xaxis": {"type": "category", "title": {"text": "layer"}},
        "yaxis": {"title": {"text": "distance (px)"}, "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.25},
    }
    titled(layout, title, NARROW_TITLE)  # (in half the page)
    return fast_figure(data, layout)


def distance_timeline(steps: list[int], distance: np.ndarray, uniform: float) -> go.Figure:
    """Each layer's mean attention distance (averaged over heads) at every snapshot.
    distance (S, L, H)."""
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": np.asarray(steps, dtype=np.float32),
            "y": distance[:, layer].mean(-1).astype(np.float32),
            "name": f"layer {layer}",
            "hovertemplate": f"layer {layer}<br>step %{{x}}<br>%{{y:.1f}} px<extra></extra>",
        }
        for layer in range(distance.shape[1])
    ]
    data.append(
        {
            "type": "scatter",
            "mode": "lines",
            "x": [steps[0], steps[-1]],
            "y": [uniform, uniform],
            "name": "spread evenly",
            "line": {"dash": "dash", "color": "#868e96"},
        }
    )
    layout = {
        "height": 320,
        "margin": {"l": 10, "r": 10, "t": 60, "b": 10},
        "xaxis": {"title": {"text": "step"}},
        "yaxis": {"title": {"text": "distance (px)"}, "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.3},
    }
    titled(layout, "How far each layer looks while training (mean over heads)", NARROW_TITLE)
    return fast_figure(data, layout)
