"""Fonts of figures: cell numbers that fit their cells, and lecture mode's `scale_fonts`, which
enlarges every font of a built figure (titles, every axis's ticks and title, legend, colour bars,
annotations, cell and bar text, hover labels) and wraps long titles instead of clipping them."""

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


def _decimals_shown(trace) -> int:
    """How many decimals a heatmap's written cell numbers have (0 when written by a template)."""
    if trace["text"] is None:
        return 0
    return max(
        (len(str(t).split(".")[1]) for row in trace["text"] for t in row if "." in str(t)),
        default=0,
    )


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


def _axis_names(fig: go.Figure) -> list[str]:
    return [k for k in fig.layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]


def _scaled(font, factor: float, default: int = BASE_FONT) -> int:
    return round(((font.size if font is not None else None) or default) * factor)


def _scale_axes(fig: go.Figure, factor: float) -> None:
    for name in _axis_names(fig):
        axis = fig.layout[name]
        ticks = len(axis.tickvals) if axis.tickvals is not None else 0
        size = _scaled(axis.tickfont, factor)
        if ticks > CROWDED_TICKS:  # a tick per row or column: the figure grows for its font
            size = max(_scaled(axis.tickfont, min(factor, CROWDED_SCALE)), min(size, LEAST_TICK))
        axis.tickfont.size = size
        axis.title.font.size = _scaled(axis.title.font, factor)


def _meta(fig: go.Figure) -> dict:
    return fig.layout.meta if isinstance(fig.layout.meta, dict) else {}


def _cell_px(fig: go.Figure, factor: float) -> float | None:
    """A matrix figure's cell width once its labels and colour bar grow by `factor`."""
    meta = _meta(fig)
    if not {"width_px", "fixed_px"} <= meta.keys():
        return meta.get("cell_px")
    cols = np.asarray(fig.data[0].z).shape[1]
    fixed = meta["fixed_px"] - (COLORBAR_PX if factor != 1.0 else 0)  # see _scale_traces
    return max(1.0, (meta["width_px"] - fixed * factor) / cols)


def _shows_colorbar(holder, trace_type: str) -> bool:
    """Heat maps show their colour bar unless told not to; markers only when told to."""
    if trace_type in ("heatmap", "contour", "histogram2d") and holder.type == trace_type:
        return holder.showscale is not False
    return getattr(holder, "showscale", None) is True


def _scale_traces(fig: go.Figure, factor: float) -> None:
    cell_px = _cell_px(fig, factor)
    for trace in fig.data:
        if "textfont" in trace and (trace["text"] is not None or trace["texttemplate"]):
            shown, decimals = _scaled(trace.textfont, 1.0, CELL_FONT), _decimals_shown(trace)
            trace.textfont.size = _scaled(trace.textfont, factor, CELL_FONT)
            if trace.type == "heatmap" and cell_px:  # larger numbers may no longer fit: they
                least = min(decimals, 1)  # keep a decimal if normal mode shows one, shrinking
                fit_cell_text(trace, cell_px, smallest=min(shown, MIN_CELL_FONT), least=least)
                if "width_px" in _meta(fig):  # a small matrix: its numbers say what the colour
                    trace.showscale = False  # bar would, and the cells get the bar's room
            if trace.type == "bar" and trace.x is not None and len(trace.x) > 4:
                trace.textangle = -90  # upright numbers fit a narrow bar without shrinking
                # and are drawn whole above the tallest bar: the axis's range leaves room for
                # the text as it was, level (lesson 13 step 11: "0.773" cut to "0.")
                trace.update(cliponaxis=False)
        for holder in (trace, getattr(trace, "marker", None)):
            if holder is not None and _shows_colorbar(holder, trace.type):
                holder.colorbar.tickfont.size = _scaled(holder.colorbar.tickfont, factor)
                holder.colorbar.title.font.size = _scaled(holder.colorbar.title.font, factor)


def _grow_for_rows(fig: go.Figure) -> None:
    """A heatmap whose height was grown for its row labels (base.grow_for_rows) grows again
    for the larger tick font, so each label keeps its own line."""
    y = fig.layout.yaxis
    if not fig.layout.height or y.tickvals is None or len(list(fig.select_yaxes())) > 1:
        return  # small multiples (heads_grid) plan their own heights
    need = len(y.tickvals) * ((y.tickfont.size or BASE_FONT) + 3) + 140
    fig.layout.height = max(fig.layout.height, need + (fig.layout.margin.t or 0))


def _rewrap_title(fig: go.Figure, factor: float, title_size: int) -> None:
    """Rewrap a title at its builder's width over `factor`, growing the top margin (and the
    height) to hold its lines. A title of several lines is pinned by its top to the figure's
    top (Plotly centres only its first line in the margin and sets the rest below it, over the
    plot's top: a grid's map names), unless its builder placed it."""
    meta, text = _meta(fig), fig.layout.title.text
    chars = meta.get("title_chars") or TITLE_CHARS
    if meta.get("title") and wrap_title(meta["title"], chars) == text:
        text = meta["title"]  # untouched since `titled`: rewrap from the original
    fig.layout.title.text = wrap_title(text, max(16, int(chars / factor)))
    lines = fig.layout.title.text.count("<br>") + 1
    need = int(lines * title_size * 1.3) + 24
    top = fig.layout.margin.t if fig.layout.margin.t is not None else 100
    if lines > 1 and fig.layout.title.y is None:  # plotly.js sets a title of several lines
        lift = round(MULTILINE_LIFT * title_size)  # this far above its top anchor
        fig.layout.title.update(yref="container", y=1.0, yanchor="top", pad_t=TITLE_PAD + lift)
    if need > top:
        fig.layout.margin.t = need
        if fig.layout.height:
            fig.layout.height = fig.layout.height + need - top


def scale_fonts(fig: go.Figure, factor: float) -> go.Figure:
    """Enlarge every font of a figure by `factor` (lecture mode on a projector), in place.

    Axes with many tick labels (token axes) grow at most CROWDED_SCALE so their labels keep
    fitting, yet to LEAST_TICK px at least (heights grow for them: _grow_for_rows,
    grid.TOKEN_PX); a long title is rewrapped to fewer characters per line (its builder's
    width, see `titled`, over `factor`), with the top margin and the height grown to hold its
    lines (_rewrap_title)."""
    size = round(BASE_FONT * factor)
    title_size = round(size * 1.25)
    fig.update_layout(font={"size": size}, title_font={"size": title_size})
    fig.layout.hoverlabel.font.size = size
    fig.layout.legend.font.size = _scaled(fig.layout.legend.font, factor)
    _scale_axes(fig, factor)
    _grow_for_rows(fig)
    _scale_traces(fig, factor)
    for ann in fig.layout.annotations or ():
        ann.font.size = _scaled(ann.font, factor)
    if fig.layout.title.text:
        _rewrap_title(fig, factor, title_size)
    return fig
