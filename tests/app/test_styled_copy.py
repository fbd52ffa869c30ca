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


def builders() -> list:
    """Figures with what styling touches: cell numbers and a colour bar, bars with their values,
    marker and line scatters with annotations, a grid of maps."""
    import numpy as np

    from attnviz.figures import base as plots
    from attnviz.figures.select import key_plane
    from attnviz.figures.text import heads_grid

    weights = np.array([[0.7, 0.3], [0.2, 0.8]])
    return [
        plots.heatmap(weights, ["a", "b"], ["a", "b"], "weights", show_numbers=True),
        plots.matrix_figure(weights, "a small matrix"),
        plots.bar_chart(np.array([0.2, 0.8, 0.1, 0.3, 0.5]), list("abcde"), "b", "w"),
        key_plane(np.eye(2), ["a", "b"], np.zeros(2), np.full(2, 0.5)),
        heads_grid(np.stack([weights, weights.T]), ["a", "b"]),
    ]


def test_styling_leaves_every_kind_of_figure_as_it_was():
    """`styled` edits copies of what it changes (attnviz/figures/lecture.py): the figure a
    cache shares between sessions keeps its fonts, colours, texts and title."""
    for fig in builders():
        before = fig.to_plotly_json()  # (a deep copy)
        out = styled(fig, LECTURE)
        assert fig.to_plotly_json() == before, fig.layout.title.text
        assert out.to_plotly_json() != before
