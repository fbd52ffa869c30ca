"""Fonts of figures: cell numbers that fit their cells, titles wrapped to a width (which lecture
mode's `scale_fonts`, attnviz/figures/lecture.py, rewraps when it enlarges every font), and the
sizes both use."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import TITLE_CHARS, fit_decimals, format_value, wrap_title

BASE_FONT = 14
CELL_FONT = BASE_FONT - 2
MIN_CELL_FONT = 9  # lecture mode shrinks cell numbers to this rather than remove them
COLORBAR_PX = 60  # of a small matrix's fixed width (base.matrix_figure): its colour bar
CROWDED_TICKS = 16  # axes with more ticks than this grow at most CROWDED_SCALE
CROWDED_SCALE = 1.25
LEAST_TICK = 14  # px: an enlarged crowded axis's tick labels still reach this (a hall's back row)
NARROW_TITLE = 34  # characters per title line of figures that usually sit in a page column
TITLE_PAD = 8  # px above a lecture title of several lines (pinned to the figure's top)
MULTILINE_LIFT = 0.9  # em: plotly.js (plotly 7.1) draws such a title this far above its anchor


def fit_cell_text(trace, cell_px: float, smallest: float | None = None, least: int = 0) -> None:
    """Write a heatmap's cell numbers with the most decimals (2, 1, 0) that fit `cell_px` at the
    trace's text font, or hide them when none fit. `smallest` (lecture mode, which keeps every
    number normal mode shows): when fewer than `least` decimals fit, the font shrinks one px at a
    time, down to this size, before a decimal is dropped or the numbers are hidden. `trace`: a
    trace dict or Plotly trace."""
    z = np.asarray(trace["z"], dtype=np.float64)  # (rows, cols); NaN cells stay blank
    font = (trace["textfont"] or {})["size"] or CELL_FONT
    decimals = fit_decimals(z, cell_px, font)
    if smallest is not None and (decimals is None or decimals < least):
        font, decimals = _shrink_to_fit(z, cell_px, font, smallest)
    if decimals is None:
        trace["text"], trace["texttemplate"] = None, ""
        return
    text = [["" if not np.isfinite(v) else format_value(v, decimals) for v in row] for row in z]
    trace["text"], trace["texttemplate"] = text, "%{text}"
    trace["textfont"] = {**_plain(trace["textfont"]), "size": font}


def _shrink_to_fit(z: np.ndarray, cell_px: float, font: int, smallest: float) -> tuple:
    """(font, decimals): the most decimals that fit at any font from `font` down to `smallest`,
    at the largest such font."""
    for decimals in (2, 1, 0):
        for size in range(int(font), int(smallest) - 1, -1):
            if fit_decimals(z, cell_px, size, most=decimals) == decimals:
                return size, decimals
    return font, None


def _plain(font) -> dict:
    if font is None:
        return {}
    return font if isinstance(font, dict) else font.to_plotly_json()


def titled(layout: dict, text: str, chars: int = TITLE_CHARS) -> dict:
    """Set a layout's title wrapped at `chars` characters a line, the top margin grown to hold
    its lines; the unwrapped text and width go to layout["meta"] so scale_fonts can rewrap."""
    wrapped = wrap_title(text, chars)
    lines = wrapped.count("<br>") + 1
    layout["title"] = {"text": wrapped}
    margin = layout.setdefault("margin", {"l": 10, "r": 10, "t": 50, "b": 10})
    margin["t"] = max(margin.get("t", 50), 28 + 22 * lines)
    layout.setdefault("meta", {}).update(title=text, title_chars=chars)
    return layout


def retitled(fig: go.Figure, text: str, chars: int = NARROW_TITLE) -> go.Figure:
    """`titled` for a built figure: a caller's own title, wrapped (and rewrapped by scale_fonts)
    like its builder's, with the top margin grown to hold its lines."""
    margin = fig.layout.margin.to_plotly_json()
    layout = titled({"margin": margin, "meta": dict(_meta(fig))}, text, chars)
    return fig.update_layout(title=layout["title"], margin=margin, meta=layout["meta"])


def _meta(fig: go.Figure) -> dict:
    return fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
