"""Render Plotly figures with lecture-mode fonts, high contrast, and a PNG/SVG download button in
the toolbar; under the page's main figure (its scene's `main_view`), a one-line text summary;
under a wide vector's map, its first dimensions in numbers (table.number_slice);
with "Figures as tables too" (the sidebar), under every figure its summary and its data as
tables (the text alternative of WCAG 1.1.1)."""

from __future__ import annotations

import textwrap
import threading
import weakref
from collections import OrderedDict

import plotly.graph_objects as go
import streamlit as st

from attnviz.figures.base import BASE_FONT, export_config, fast_figure
from attnviz.figures.lecture import (
    as_spec,
    contrast_spec,
    meta,
    node,
    read,
    scale_spec,
    title_px,
    title_text,
    written,
)
from attnviz.figures.stage import on_stage
from attnviz.figures.summary import summary
from attnviz.figures.table import FigureTable, figure_tables, number_slice
from attnviz.ui.common import here
from attnviz.ui.common.cell_tap import cell_taps
from attnviz.ui.common.plain_table import plain_table
from attnviz.ui.common.settings import GlobalSettings, settings

LECTURE_HEIGHT = 1.3  # figures grow with their fonts in lecture mode
TITLE_WIDTH = 440  # px: a lecture-mode title wraps to fit a figure this wide (a third of 1280)
# unless the figure says its own width (see title_width)
LECTURE_PAGE_PX = 1100  # px a lecture-mode title may take across the page at 1280 px
CHAR_EM = 0.55  # a title character's width in ems (_lecture wraps at this too)
STAGE_WIDTH = 1150  # px: a title on a presenter's stage, where a view spans a 1280 px projector
# a number slice's table under its view (numbers): its caption, then each row, the header's too;
# across, its token column and each value's (a stage shows it whole: no scrolling on a projector)
TABLE_TOP_PX, TABLE_ROW_PX = 44, 30  # (static/stage.css draws a stage's rows this compact)
TABLE_INDEX_PX, TABLE_COLUMN_PX = 115, 60
MIN_STAGE_PLOT = 200  # px: a view's plot on a stage is not drawn shorter for its table
MAX_STYLED = 64  # styled copies kept (styled_copy), every session's together
_STYLED: OrderedDict[tuple, tuple[weakref.ref, go.Figure]] = OrderedDict()
_STYLED_LOCK = threading.Lock()


def show(fig: go.Figure, name: str, span: float | None = None, **kwargs):
    """st.plotly_chart with the global export format, font scale and contrast; `name` is the
    file name. A lecture-mode title runs across the share of the page the scene's view says it
    spans (View.span; `span` for a figure no view declares: its builder wraps it for a column a
    third as wide, 3–4 lines over a wide map). Under the page's main view, its summary as plain
    text (never Markdown or HTML: labels are tokens a user typed)."""
    glob, scene, stage = settings(), here.scene(), here.stage()
    shown = scene.stands_for(name) if scene is not None else name  # a run's maps: Step 0's name
    if stage is not None and not stage.shows(shown):  # a presenter's stage showing other views
        return None
    main = scene is not None and shown == scene.main_view
    line = summary(fig) if main or glob.tables else None
    height = stage.height(shown) if stage is not None else None  # its share of the room
    part = number_slice(fig, slice_columns(stage.width(shown) if stage is not None else None))
    if height and part is not None:  # the slice's table shares the view's room on a stage
        height = max(MIN_STAGE_PLOT, height - TABLE_TOP_PX - TABLE_ROW_PX * (len(part.data) + 1))
    if glob.font_scale != 1.0 or glob.high_contrast or height:
        across = stage.width(shown) if stage is not None else None
        across = across or (STAGE_WIDTH if here.staged() else None)
        if across is not None:  # a stage's width wins
            span = None
        elif span is None and scene is not None:
            span = scene.span(shown)
        fig = styled_copy(fig, glob, across, height, span)
        if height and fig.layout.width:  # a picture squared for the stage: drawn at that width
            kwargs["width"] = "content"
    if kwargs.get("on_select") is not None:  # a tap on a phone picks a cell too
        cell_taps()
    with here.view_place(shown):  # presenter mode: where the stage finds the view
        chart = st.plotly_chart(fig, config=export_config(glob.export_format, name), **kwargs)
        if line:
            st.text(line)
        numbers(part)
        if glob.tables:
            as_tables(fig)
    return chart


def slice_columns(across: int | None) -> int | None:
    """How many values of a number slice fit a stage's view `across` px wide (None off a
    stage: the page's table scrolls on a phone)."""
    return None if across is None else max(3, (across - TABLE_INDEX_PX) // TABLE_COLUMN_PX)


def numbers(part: FigureTable | None) -> None:
    """The slice of a wide vector its builder asks to print in numbers (table.number_slice),
    under the figure and inside its place on a stage; its rows are tokens a user typed, shown
    as typed (plain_table)."""
    if part is not None:
        st.caption(part.title)
        plain_table(part.data)


def as_tables(fig: go.Figure) -> None:
    """The figure's data as tables (the sidebar's "Figures as tables too"): shown as data,
    never HTML (labels are tokens a user typed)."""
    for table in figure_tables(fig):
        st.caption(f"Table: {table.title}")
        st.dataframe(table.data, height=min(400, 38 + 35 * len(table.data)))


def styled_copy(
    fig: go.Figure,
    glob: GlobalSettings,
    across: int | None,
    height: int | None,
    span: float | None = None,
) -> go.Figure:
    """A styled copy of `fig` (`styled`, then sized for its place on a stage), made once per
    figure object and style: a view kept across reruns (attnviz.ui.common.view_cache) is not
    styled again on a rerun that did not change it (lecture styling costs ~6 ms a figure). The
    copy is shared read-only, as the figure it was made from."""
    key = (id(fig), glob.font_scale, glob.high_contrast, across, height, span)
    with _STYLED_LOCK:
        found = _STYLED.get(key)
        if found is not None and found[0]() is fig:  # the same object, not a reused id
            _STYLED.move_to_end(key)
            return found[1]
    out = styled(fig, glob, across, span)  # a new figure: a cached one may be shared by sessions
    if height:
        on_stage(out, across or STAGE_WIDTH, height)
        out.update_layout(height=height)
    with _STYLED_LOCK:
        _STYLED[key] = (weakref.ref(fig), out)
        while len(_STYLED) > MAX_STYLED:
            _STYLED.popitem(last=False)
    return out


def styled(
    fig: go.Figure, glob: GlobalSettings, across: int | None = None, span: float | None = None
) -> go.Figure:
    """`fig` with lecture-mode fonts, height and titles, and high contrast, as a new figure
    (`across`: the width in px a title may take, on a presenter's stage; `span`: the share of a
    lecture page's width it may take, see `show`); `fig` itself when
    neither applies. Edited as plain dicts (attnviz/figures/lecture.py): through Plotly's
    property tree the same edits took ~19 ms a figure."""
    if glob.font_scale == 1.0 and not glob.high_contrast:
        return fig
    spec = as_spec(fig)
    if glob.font_scale != 1.0:
        if span and not across:
            span_title(spec["layout"], span, glob.font_scale)
        _lecture(spec, glob.font_scale, across)
    if glob.high_contrast:
        contrast_spec(spec)
    return fast_figure(spec["data"], spec["layout"])


def _lecture(spec: dict, scale: float, across: int | None) -> None:
    scale_spec(spec, scale)
    layout = spec["layout"]
    size = read(layout, "title", "font", "size")
    width = across or title_width(layout)
    if across and title_text(layout):  # a stage: one line again
        title = node(layout, "title")
        title["text"] = title["text"].replace("<br>", " ")
    if width is not None:
        _wrap_title(layout, int(width / (CHAR_EM * (size or BASE_FONT * scale))))
    if layout.get("height"):
        layout["height"] = int(layout["height"] * LECTURE_HEIGHT)


def span_title(layout: dict, span: float, scale: float) -> None:
    """Say (as its builder would: fonts.titled) that the title may take `span` of a lecture
    page's width (LECTURE_PAGE_PX), in place; scale_spec then wraps it to that."""
    text = meta(layout).get("title") or (title_text(layout) or "").replace("<br>", " ")
    if not text:
        return
    chars = int(span * LECTURE_PAGE_PX / (CHAR_EM * title_px(scale)) * scale)
    node(layout, "meta").update(title=text, title_chars=chars)
    node(layout, "title")["text"] = text


def title_width(layout: dict) -> int | None:
    """The width (px) a lecture-mode title wraps to: None when the figure's builder said how
    wide its title may be (`titled`: meta `title_chars`; scale_fonts has rewrapped it to that,
    e.g. the model view's one line across the page), else the figure's own width where its meta
    says it (`width_px`), else TITLE_WIDTH."""
    about = meta(layout)
    if about.get("title_chars"):
        return None
    return int(about.get("width_px") or TITLE_WIDTH)


def wrap_title(fig: go.Figure, width: int) -> go.Figure:
    """`_wrap_title` on a built figure, in place (and returned)."""
    spec = as_spec(fig)
    _wrap_title(spec["layout"], width)
    fig.layout = spec["layout"]
    return fig


def _wrap_title(layout: dict, width: int) -> None:
    """Break a long title at spaces into lines of at most `width` characters (Plotly never
    wraps, so a long title is clipped at the figure's edge), with room made above the plot."""
    text = title_text(layout)
    if not text or "<br>" in text or len(text) <= width:
        return
    lines = textwrap.wrap(text, width, break_long_words=False)
    size = read(layout, "title", "font", "size") or BASE_FONT
    top = read(layout, "margin", "t")
    top = 80 if top is None else top
    # Plotly anchors a title by its first line and adds lines below it: pin the first line near
    # the top and give the margin room for every line on top of what it held (top ticks, notes)
    block = int(size * 1.3 * len(lines))
    height = (layout.get("height") or 450) + block
    first = 1 - (8 + size * 0.65) / height
    title = node(layout, "title")
    title.update(text="<br>".join(lines), yref="container", y=first, yanchor="middle")
    node(layout, "margin")["t"] = top + block
    layout["height"] = height


def high_contrast(fig: go.Figure) -> go.Figure:
    """`contrast_spec` on a built figure, in place (and returned)."""
    return written(fig, contrast_spec(as_spec(fig)))
