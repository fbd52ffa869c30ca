"""A figure on a presenter's stage (attnviz.ui.lecture.stage; attnviz.ui.common.figures.show calls
on_stage): drawn at the height and width the
stage measured, so what a page lays out for its own column is laid out again for that room. The
title takes one line (its font shrunk to fit, wrapped only below STAGE_TITLE_MIN) and the top
margin holds just that; a legend under the plot is pinned to the figure's bottom with a margin
that holds it (a legend placed at a fraction of the height lands on the axis titles once the
height changes); two panels side by side keep a gap wide enough for the right one's axis; a
token axis names every token when they fit (up to LABEL_ALL_MAX); tick labels and cell numbers
are at least STAGE_TEXT_MIN px (cell numbers where they fit their cells at that size); row
labels that no longer fit one line apart at the stage's height are thinned."""

from __future__ import annotations

import math
import re
import textwrap

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import LABEL_ALL_MAX
from attnviz.figures.base import BASE_FONT
from attnviz.figures.fonts import CELL_FONT, fit_cell_text

STAGE_TITLE_MIN = 16  # px: the smallest a title shrinks to on a stage before it wraps
PANEL_GAP_PX = 170  # px between two panels side by side: the right one's ticks and axis title
NARROW_PX = 520  # px: a room narrower than this gets the layout a figure's meta "narrow" gives
AXIS_BOTTOM_PX = 80  # px under a plot: its tick labels and axis title
# px: the smallest tick label or cell number drawn on a stage, so that at the stage's zoom (down
# to 0.9, a view a little taller than its room) a projector still shows 14 px or more
STAGE_TEXT_MIN = 16
PANEL_SPACE_PX = 14  # px between pictures laid out again in a grid (_panels)
PLOT_SHARE = 0.8  # of an axis's width: its cells' share (the margins and colour bar take the rest)


def on_stage(fig: go.Figure, across: int, high: int | None = None) -> go.Figure:
    """Lay `fig` out again for a stage `across` px wide and `high` px tall (in place)."""
    _title(fig, across)
    _legend(fig, across)
    if high is not None:
        _upright_titles(fig, high)
        _panels(fig, across, high)
    _panel_gap(fig, across)
    _narrow(fig, across)
    _readable(fig, across)
    _every_token(fig, across)
    if high is not None:
        _rows_apart(fig, high)
        _square_pictures(fig, across, high)
    return fig


def _narrow(fig: go.Figure, across: int) -> None:
    """In a room narrower than NARROW_PX, the layout the figure's meta offers for it (`narrow`:
    e.g. a run's curves with fewer step labels and no second axis title, where two panels of
    about 120 px ran "0 50100150" together and "token accuracy" over the loss panel)."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if across < NARROW_PX and meta.get("narrow"):
        fig.update_layout(meta["narrow"])


def _square_pictures(fig: go.Figure, across: int, high: int) -> None:
    """A picture kept square by Plotly (`scaleanchor`, `constrain="domain"`) made square by the
    server for this room instead: its domains shrunk around their centres to one px per unit,
    and Plotly's constraint dropped. Plotly writes the domain it constrained back into the
    figure and, redrawn at another width (a stage fitting a view moved out of its column), it
    constrains that again: L7's maps shrank to 32-93 px in a 470 px room while a run redrew
    them."""
    margin = fig.layout.margin
    width = across - _or(margin.l, 80) - _or(margin.r, 80)
    area = high - _or(margin.t, 100) - _or(margin.b, 80)
    for name in [n for n in fig.layout if n.startswith("yaxis")]:
        y = fig.layout[name]
        x = fig.layout[f"xaxis{y.scaleanchor[1:]}"] if y.scaleanchor else None
        if x is None or "domain" not in (x.constrain, y.constrain) or not (x.range and y.range):
            continue
        (x0, x1), (y0, y1) = x.domain or (0, 1), y.domain or (0, 1)
        x_px = (x1 - x0) * width / abs(x.range[1] - x.range[0])  # px per unit
        y_px = (y1 - y0) * area / abs(y.range[1] - y.range[0])
        unit = min(x_px, y_px)
        x.domain, y.domain = _shrunk(x0, x1, unit / x_px), _shrunk(y0, y1, unit / y_px)
        y.scaleanchor = None
        fig.layout.width = across  # drawn at the width it was squared for, not resized


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def _shrunk(low: float, high: float, factor: float) -> tuple[float, float]:
    """[low, high] shrunk by `factor` around its centre."""
    centre, half = (low + high) / 2, (high - low) * factor / 2
    return (centre - half, centre + half)


def _panel_side(count: int, columns: int, width: float, area: float, name_px: float) -> float:
    """The side (px) of each of `count` square panels in `columns` columns, each with its name
    above, in a plot `width` × `area` px."""
    rows = math.ceil(count / columns)
    return min(width / columns - PANEL_SPACE_PX, area / rows - name_px - PANEL_SPACE_PX)


def _panels(fig: go.Figure, across: int, high: int) -> None:
    """Pictures in a grid with their names above (figures.vision.panels_figure, which says so
    in its meta) laid out again for the stage's room: as many columns as make them largest (a
    wide, low stage takes the 8 maps of 2 rows in one), each name one line above its map (drawn
    at a fraction of a shorter height, the names overprinted the row above)."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    plan = meta.get("panels")
    if not plan or len(fig.layout.annotations) < plan["count"]:
        return
    count, margin = plan["count"], fig.layout.margin
    font = fig.layout.annotations[0].font.size if fig.layout.annotations[0].font else None
    name_px = max(plan["name_px"], 1.4 * (font or BASE_FONT))
    width = across - (margin.l or 0) - (margin.r or 0)
    area = high - (margin.t or 0) - (margin.b or 0)
    columns = max(range(1, count + 1), key=lambda c: _panel_side(count, c, width, area, name_px))
    side = _panel_side(count, columns, width, area, name_px)
    if side < 40:  # no room to lay them out again: as the page drew them
        return
    rows = math.ceil(count / columns)
    row_px = area / rows
    for i in range(count):
        r, c = divmod(i, columns)
        n = "" if i == 0 else str(i + 1)
        left = (c + 0.5) * width / columns - side / 2
        top = r * row_px + name_px
        fig.layout[f"xaxis{n}"].domain = (left / width, (left + side) / width)
        fig.layout[f"yaxis{n}"].domain = (1 - (top + side) / area, 1 - top / area)
        fig.layout.annotations[i].update(x=(left + side / 2) / width, y=1 - top / area)


def _rows_apart(fig: go.Figure, high: int) -> None:
    """Row labels of a y axis that no longer fit one line apart at the stage's height (13 tokens
    in a grid panel 130 px tall printed over each other) are thinned to every k-th."""
    margin = fig.layout.margin
    plot = high - (margin.t or 100) - max(margin.b or 80, _under_plot(fig))
    for name in fig.layout:
        axis = fig.layout[name]
        if not name.startswith("yaxis") or axis.tickmode != "array" or not axis.tickvals:
            continue
        values, texts = list(axis.tickvals), list(axis.ticktext or axis.tickvals)
        size = (axis.tickfont.size if axis.tickfont else None) or BASE_FONT
        low, top = axis.domain or (0, 1)
        step = math.ceil(1.15 * size * len(values) / max(1.0, (top - low) * plot))
        if step > 1:
            axis.update(tickvals=values[::step], ticktext=texts[::step])


def _title(fig: go.Figure, across: int) -> None:
    text = fig.layout.title.text if fig.layout.title else None
    if not text:
        return
    text = text.replace("<br>", " ")
    size = (fig.layout.title.font.size if fig.layout.title.font else None) or BASE_FONT
    size = max(STAGE_TITLE_MIN, min(size, int(across / (0.55 * len(text)))))
    lines = textwrap.wrap(text, max(1, int(across / (0.55 * size))), break_long_words=False)
    pad = 28 if fig.layout.annotations else 18 + math.ceil(_top_tick_px(fig) / 2)  # subplot
    # titles sit just above the plot; else above the top y tick label, half of it over the plot,
    # by a few px more: a metric's "100%" stands higher than the loss's top label (a run's curves
    # on half a 1280 px stage, tests/browser/test_curve_ticks.py)
    title = {"text": "<br>".join(lines), "font": {"size": size}, "yref": "paper", "y": 1}
    title |= {"yanchor": "bottom", "pad": {"b": pad}}
    fig.update_layout(title=title, margin={"t": 12 + pad + int(size * 1.3) * len(lines)})


def _top_tick_px(fig: go.Figure) -> float:
    """The largest y tick label a stage draws (px): at least STAGE_TEXT_MIN (`_readable`)."""
    sizes = [
        (fig.layout[name].tickfont.size if fig.layout[name].tickfont else None) or BASE_FONT
        for name in fig.layout
        if name.startswith("yaxis")
    ]
    return max([STAGE_TEXT_MIN, *sizes])


def _legend_rows(shown: list, across: int, size: float) -> tuple[int, int]:
    """(entries per row, rows) of a horizontal legend of `shown` traces `across` px wide."""
    entry = 48 + int(0.55 * size * max(len(str(t.name)) for t in shown))  # line sample + text
    per_row = max(1, min(len(shown), across // entry))
    return per_row, math.ceil(len(shown) / per_row)


def _shorter_legend(fig: go.Figure) -> list:
    """The short legend a figure's meta offers for a stage (`stage_legend`: name -> short name,
    or None where another entry already stands for the trace): applied; the traces shown."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    short = meta.get("stage_legend") or {}
    for trace in fig.data:
        if trace.name in short:
            if short[trace.name] is None:
                trace.showlegend = False
            else:
                trace.name = short[trace.name]
    return [t for t in fig.data if getattr(t, "showlegend", False) is not False and t.name]


def _legend(fig: go.Figure, across: int) -> None:
    legend = fig.layout.legend
    shown = [t for t in fig.data if getattr(t, "showlegend", False) is not False and t.name]
    if not shown or legend.orientation != "h" or legend.y is None or legend.y >= 0:
        return
    if _keeps_aspect(fig):  # its plot is letterboxed inside the height: the legend stays with it
        return
    size = (legend.font.size if legend.font else None) or BASE_FONT
    per_row, rows = _legend_rows(shown, across, size)
    if rows > 1 and isinstance(fig.layout.meta, dict) and fig.layout.meta.get("stage_legend"):
        shown = _shorter_legend(fig)  # a training run's curves: the panels name loss and metric
        per_row, rows = _legend_rows(shown, across, size)
    place = {"yref": "container", "y": 0, "yanchor": "bottom"}
    if rows > 2 and size > STAGE_TEXT_MIN:  # a narrow cell: a legend of 5 rows left the plot
        size = STAGE_TEXT_MIN  # 29 px tall (L7 s3); at the smallest text, more to a row
        per_row, rows = _legend_rows(shown, across, size)
        place["font"] = {"size": size}
    high = int(rows * size * 1.6) + 8
    fig.update_layout(
        legend=place | {"entrywidthmode": "fraction", "entrywidth": 1 / per_row - 0.01},
        margin={"b": high + AXIS_BOTTOM_PX},
    )


def _every_token(fig: go.Figure, across: int) -> None:
    """A token axis that left its spacing to Plotly (more than SPACED_MIN labels: the server did
    not know the width) names every token on a stage, where the width is known, when its upright
    labels fit one line apart (up to LABEL_ALL_MAX tokens)."""
    for name in fig.layout:
        axis = fig.layout[name]
        if not name.startswith("xaxis") or getattr(axis, "type", None) != "category":
            continue
        labels = list(axis.categoryarray or ())
        if axis.tickmode not in (None, "auto") or not labels or len(labels) > LABEL_ALL_MAX:
            continue
        size = (axis.tickfont.size if axis.tickfont else None) or BASE_FONT
        low, high = axis.domain or (0, 1)
        if (high - low) * across / len(labels) >= size * 1.3:
            axis.update(tickmode="array", tickvals=labels, ticktext=labels, tickangle=-90)
            axis.automargin = True  # upright labels need the room under the plot their length takes


def _under_plot(fig: go.Figure) -> int:
    """px under the plot that upright x tick labels take (automargin grows the margin for them
    when drawn), with the axis title: the longest label's length at its font."""
    axis = fig.layout.xaxis
    if axis is None or axis.tickangle not in (-90, 90) or axis.type != "category":
        return 0
    labels = [str(s) for s in (axis.ticktext or axis.categoryarray or ())]
    size = (axis.tickfont.size if axis.tickfont else None) or BASE_FONT
    return AXIS_BOTTOM_PX + int(0.55 * size * max((len(s) for s in labels), default=0))


def _upright_titles(fig: go.Figure, high: int) -> None:
    """A y axis title longer than its plot is tall would stand out of it, over the figure's
    title or the panel beside it: it is left out (the tick labels and the legend still name what
    the axis shows; shrunk to fit, it was too small to read on a projector)."""
    margin = fig.layout.margin
    plot = high - (margin.t or 100) - (margin.b or 80)
    for name in fig.layout:
        axis = fig.layout[name]
        text = axis.title.text if name.startswith("yaxis") and axis.title else None
        if not text:
            continue
        low, top = axis.domain or (0, 1)
        size = (axis.title.font.size if axis.title.font else None) or BASE_FONT
        if 0.55 * size * len(text) > (top - low) * plot:
            axis.title.text = ""


def _readable(fig: go.Figure, across: int) -> None:
    """Tick labels and cell numbers of at least STAGE_TEXT_MIN px (cell numbers only where they
    still fit their cells, with the decimals they had or fewer, never hidden for it)."""
    for name in fig.layout:
        if name.startswith(("xaxis", "yaxis")):
            axis = fig.layout[name]
            size = (axis.tickfont.size if axis.tickfont else None) or BASE_FONT
            if size < STAGE_TEXT_MIN:
                axis.update(tickfont_size=STAGE_TEXT_MIN)
    for trace in fig.data:
        if trace.type == "heatmap" and (trace.text is not None or trace.texttemplate):
            _readable_cells(fig, trace, across)


def _readable_cells(fig: go.Figure, trace, across: int) -> None:
    if trace.z is None or ((trace.textfont.size or CELL_FONT) >= STAGE_TEXT_MIN):
        return
    axis = fig.layout["xaxis" + (trace.xaxis or "x")[1:]]
    low, high = axis.domain or (0, 1)
    cols = max(1, np.shape(trace.z)[-1])
    before = (trace.text, trace.texttemplate, trace.textfont.size)
    decimals = _decimals(trace)
    trace.textfont.size = STAGE_TEXT_MIN
    fit_cell_text(trace, PLOT_SHARE * across * (high - low) / cols)
    if not trace.texttemplate or _decimals(trace) < decimals:  # they do not fit: as they were
        trace.text, trace.texttemplate = before[0], before[1]
        trace.textfont.size = before[2]


def _decimals(trace) -> int:
    """The decimals a heatmap's cell numbers show: its template's (".2f") or its texts' most."""
    if trace.text is None:
        found = re.search(r"\.(\d+)f", trace.texttemplate or "")
        return int(found.group(1)) if found else 0
    shown = [str(t) for row in trace.text for t in row]
    return max((len(t.split(".")[1]) for t in shown if "." in t), default=0)


def _keeps_aspect(fig: go.Figure) -> bool:
    return any(
        getattr(fig.layout[name], "scaleanchor", None)
        for name in fig.layout
        if name.startswith(("xaxis", "yaxis"))
    )


def _panel_gap(fig: go.Figure, across: int) -> None:
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if meta.get("panels"):  # pictures in a grid (`_panels`): no axis between them
        return
    left, right = (
        fig.layout.xaxis.domain,
        fig.layout.xaxis2.domain if "xaxis2" in fig.layout else None,
    )
    if not left or not right or left[1] > 0.5 or right[0] < 0.5:
        return
    gap = min(0.3, PANEL_GAP_PX / max(across, 1))
    if right[0] - left[1] >= gap:
        return
    fig.update_layout(xaxis_domain=[0, 0.5 - gap / 2], xaxis2_domain=[0.5 + gap / 2, 1])
