"""A figure kept across reruns is styled for lecture mode once per style, not on every rerun
(attnviz.ui.common.figures.styled_copy): the copy is the one `styled` makes, the figure itself is
untouched, and a new figure object (even at a reused address) is styled anew."""

from __future__ import annotations

import gc
import weakref

import plotly.graph_objects as go

from attnviz.ui.common import figures
from attnviz.ui.common.figures import styled, styled_copy
from attnviz.ui.common.settings import GlobalSettings

LECTURE = GlobalSettings("cpu", 0, lecture=True, export_format="png", high_contrast=True)
NORMAL_CONTRAST = GlobalSettings("cpu", 0, lecture=False, export_format="png", high_contrast=True)


def figure() -> go.Figure:
    return go.Figure(go.Heatmap(z=[[0.1, 0.9], [0.5, 0.5]]), layout={"title": {"text": "A map"}})


def test_a_kept_figure_is_styled_once_per_style_and_left_as_it_was():
    fig = figure()
    before = fig.to_plotly_json()
    first = styled_copy(fig, LECTURE, None, None)
    assert first.to_plotly_json() == styled(figure(), LECTURE).to_plotly_json()
    assert fig.to_plotly_json() == before, "the shared figure is not styled in place"
    assert first.layout.font.size > (fig.layout.font.size or 0)
    assert styled_copy(fig, LECTURE, None, None) is first, "a rerun reuses the styled copy"
    assert styled_copy(fig, NORMAL_CONTRAST, None, None) is not first, "another style"
    assert styled_copy(fig, LECTURE, 900, 400) is not first, "another place on a stage"


def test_a_new_figure_is_styled_anew_even_at_a_reused_address():
    """CPython reuses a freed object's address: a copy kept for a figure that is gone, under the
    address a new figure now has, is not that new figure's."""
    gone = figure()
    stale = styled_copy(gone, LECTURE, None, None)
    fig = figure()
    key = (id(fig), LECTURE.font_scale, LECTURE.high_contrast, None, None)
    figures._STYLED[key] = (weakref.ref(gone), stale)  # as if `gone` had lived at fig's address
    del gone
    gc.collect()
    fresh = styled_copy(fig, LECTURE, None, None)
    assert fresh is not stale
    assert fresh.to_plotly_json() == styled(figure(), LECTURE).to_plotly_json()
