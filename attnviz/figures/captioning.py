"""Figures of the captioning page: the caption word by word, each word's attention over the region
grid drawn on the image (Show, Attend and Tell: one small panel per word; for a transformer also
every layer × head), the cross-attention matrix (words × regions), what a model says for held-out
combinations, and the share of attention on the named object per layer and head.

Images are (3, S, S) arrays in [0, 1]; attention maps are (g, g) grids over the regions (row-major
region r = row · g + column), drawn as figures/vision.py draws patches: each cell exactly over its
part of the image, coloured 0 to the panel's own largest weight.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import SEQUENTIAL, base_layout, fast_figure, heatmap_spec, titled
from attnviz.figures.vision import Panel, panels_figure

IMAGE_NAME = "the image"
SHARE_COLOUR, EVEN_COLOUR = "#e8590c", "#868e96"
FLAT_FLOOR = 3.0  # a map's colour scale reaches at least 3 × the evenly spread weight


def word_names(words: Sequence[str]) -> list[str]:
    """Panel and axis names of the words: their position and the word ("3 red"); the special
    words in angle quotes ("6 ⟨eos⟩"), which no renderer reads as a tag."""
    return [f"{i + 1} {_plain(word)}" for i, word in enumerate(words)]


def _plain(word: str) -> str:
    return f"⟨{word[1:-1]}⟩" if word.startswith("<") and word.endswith(">") else word


def region_names(grid: int) -> list[str]:
    """Axis names of the regions, row-major: "row,column" of the grid."""
    return [f"{r},{c}" for r in range(grid) for c in range(grid)]


def words_figure(
    image: np.ndarray, words: Sequence[str], maps: np.ndarray, title: str, columns: int = 6
) -> go.Figure:
    """The image, then one panel per word with its attention (T, g, g) over the image."""
    panels = [Panel(image, IMAGE_NAME)] + [
        Panel(image, name, m) for name, m in zip(word_names(words), maps, strict=True)
    ]
    columns = max(1, min(columns, len(panels)))
    return floored(panels_figure(panels, columns, title, side_px=_side(columns)))


def floored(fig: go.Figure) -> go.Figure:
    """Colour every map from 0 to its largest weight, but at least FLAT_FLOOR × the weight of
    evenly spread attention: a flat map (looking everywhere) stays faint over the image instead
    of covering it, while a peaked one is drawn at full strength."""
    for trace in fig.data:
        if trace.type == "heatmap":
            even = 1.0 / np.asarray(trace.z).size
            trace.zmax = max(float(trace.zmax or 0.0), FLAT_FLOOR * even)
    return fig


def _side(columns: int) -> int:
    """A panel's side (px) the figure's height is planned for: six a row share a laptop's stage
    column at about 80 px each (at 120, each row was drawn 156 px tall for 76 px maps, and the
    maps ended past a 1280×720 first screen: issue 54)."""
    return {1: 220, 2: 200, 3: 180, 4: 160, 5: 140}.get(columns, 96)


def heads_figure(
    image: np.ndarray, words: Sequence[str], maps: np.ndarray, title: str
) -> go.Figure:
    """Every layer and head (rows) for every word (columns): maps (T, L, H, g, g). Columns are
    headed by the word's number only (eleven words never fit side by side in a lecture font);
    hovering a map gives its word, layer and head."""
    t, layers, heads = maps.shape[:3]
    names = word_names(words)
    panels = [
        Panel(image, f"{names[w]}: layer {a}, head {b}", maps[w, a, b])
        for a in range(layers)
        for b in range(heads)
        for w in range(t)
    ]
    rows = [f"L{a} H{b}" for a in range(layers) for b in range(heads)]
    numbers = [str(i + 1) for i in range(t)]
    return floored(panels_figure(panels, t, title, side_px=90, headers=(numbers, rows)))


def cross_attention_figure(
    weights: np.ndarray, words: Sequence[str], grid: int, title: str
) -> go.Figure:
    """(T, R) cross-attention: one row per written word, one column per region; rows sum to 1."""
    trace, layout = heatmap_spec(
        weights,
        x_labels=region_names(grid),
        y_labels=word_names(words),
        title=title,
        x_title=f"image region (row,column of the {grid}×{grid} grid)",
        y_title="word written",
        zmin=0.0,
        zmax=float(np.max(weights)) if np.size(weights) else 1.0,
        colorscale=SEQUENTIAL,
    )
    layout["height"] = max(layout.get("height") or 0, 200 + 26 * len(words))
    layout["xaxis"].update(_row_starts(trace["x"], grid))
    return fast_figure([trace], layout)


def _row_starts(names: list[str], grid: int) -> dict:
    """Region ticks that name only each grid row's first region ("2,0"; the rest in the hover)
    once a grid has more than 3 × 3 regions: 36 upright names never fit a phone, and a lecture
    font needs the room; every region keeps its tick mark, so the columns still read as cells."""
    if grid <= 3:
        return {}
    text = [name if i % grid == 0 else "" for i, name in enumerate(names)]
    return {
        "tickmode": "array",
        "tickvals": list(names),
        "ticktext": text,
        "tickfont": {"size": 12},
        "ticks": "outside",
        "ticklen": 4,
    }


def said_figure(said: dict[str, int], title: str) -> go.Figure:
    """How often the model said each (colour kind) for a held-out shape: horizontal bars, the
    most frequent on top."""
    pairs = sorted(said.items(), key=lambda kv: -kv[1])
    names = [name for name, _ in pairs][::-1]
    counts = np.array([n for _, n in pairs][::-1], dtype=np.float32)
    trace = {
        "type": "bar",
        "orientation": "h",
        "x": counts,
        "y": names,
        "text": [str(int(n)) for n in counts],
        "textposition": "auto",
        "marker": {"color": SHARE_COLOUR},
        "hovertemplate": "said “%{y}” for %{x} held-out shapes<extra></extra>",
    }
    layout = base_layout("", 140 + 34 * len(names))
    titled(layout, title, 44)
    layout["xaxis"] = {"title": {"text": "held-out shapes"}, "rangemode": "tozero"}
    layout["yaxis"] = {"title": {"text": "what it said"}, "type": "category", "automargin": True}
    return fast_figure([trace], layout)


def share_figure(per_head: np.ndarray, area: float, title: str) -> go.Figure:
    """The share of attention on the named shape (L, H): a bar per layer and head, and the share
    that attention spread evenly over the regions would give (dashed)."""
    layers, heads = per_head.shape
    names = [f"layer {a}, head {b}" for a in range(layers) for b in range(heads)]
    if len(names) == 1:
        names = ["the GRU's attention"]
    values = np.asarray(per_head, dtype=np.float32).reshape(-1)
    bars = {
        "type": "bar",
        "x": names,
        "y": values,
        "name": "on the named shape",
        "marker": {"color": SHARE_COLOUR},
        "text": [f"{v:.0%}" for v in values],
        "textposition": "outside",
        "hovertemplate": "%{x}: %{y:.1%} on the named shape<extra></extra>",
    }
    even = {
        "type": "scatter",
        "mode": "lines",
        "x": [names[0], names[-1]] if len(names) > 1 else names * 2,
        "y": [area, area],
        "name": "spread evenly",
        "line": {"dash": "dash", "color": EVEN_COLOUR, "width": 3},
        "hovertemplate": f"attention spread evenly: {area:.1%}<extra></extra>",
    }
    layout = base_layout("", 340)
    titled(layout, title, 44)
    layout["xaxis"] = {"type": "category", "title": {"text": "layer and head"}}
    layout["yaxis"] = {
        "title": {"text": "share of attention"},
        "range": [0, 1.1],
        "tickformat": ".0%",
    }
    layout["legend"] = {"orientation": "h", "y": -0.3}
    return fast_figure([bars, even], layout)
