"""The BertViz-style head view shared by the text and pretrained pages: registers the
component (head_view.js and head_view.css beside this file; its data from
attnviz.figures.head_view) and draws it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from attnviz.figures.head_view import head_view_data
from attnviz.figures.text import HEAD_VIEW_MAX
from attnviz.ui.common import here
from attnviz.ui.common.settings import settings

_HERE = Path(__file__).parent
HEAD_VIEW = "head_view"  # the view's name in a lesson step (`views`)
COMPONENT = st.components.v2.component(
    "attnviz_head_view",
    css=(_HERE / "head_view.css").read_text(),
    js=(_HERE / "head_view.js").read_text(),
)


def _copy_clicked_query(key: str, query_key: str) -> None:
    st.session_state[query_key] = int(st.session_state[key]["query"])


BARS_PX = 100  # the heads' legend and the hover hint above the tokens
STAGE_FONT_MIN = 15  # px: tokens on a stage (the stage may zoom a view down by a few per cent)


def stage_rows(tokens: int, font: int) -> dict:
    """On a presenter's stage, the row height and font that fit `tokens` rows into the room
    (a row of 1.2 fonts at least; the font no smaller than STAGE_FONT_MIN); {} elsewhere."""
    stage = here.stage()
    height = stage.height(HEAD_VIEW) if stage is not None else None
    if height is None:
        return {}
    row = min(round(font * 1.7), (height - BARS_PX) // (tokens + 1))
    font = max(STAGE_FONT_MIN, min(font, int(row / 1.2)))
    return {"row": max(row, round(font * 1.2)), "font": font}


def head_view(
    weights: np.ndarray,  # (H, T, T)
    tokens: list[str],
    heads: list[int],
    query: int | None,
    key: str,
    query_key: str | None = None,
) -> None:
    """Tokens in two columns joined by lines (opacity = weight, a colour per head); hovering a
    token isolates its lines. With `query_key`, clicking a query token (left) stores its index
    in st.session_state[query_key], the key of the page's query slider."""
    stage = here.stage()
    if stage is not None and not stage.shows(HEAD_VIEW):  # a stage showing other views
        return
    if len(tokens) > HEAD_VIEW_MAX:
        st.info(f"The head view shows the first {HEAD_VIEW_MAX} of {len(tokens)} tokens.")
    font = round(14 * settings().font_scale)
    data = head_view_data(weights, tokens, sorted(heads), query, font)
    data |= stage_rows(len(data["tokens"]), font)
    with here.view_place(HEAD_VIEW):  # presenter mode: where the stage finds it
        if query_key is None:
            COMPONENT(data=data | {"clickable": False}, key=key)
            return
        COMPONENT(
            data=data | {"clickable": True},
            key=key,
            default={"query": query},
            on_query_change=lambda: _copy_clicked_query(key, query_key),
        )
