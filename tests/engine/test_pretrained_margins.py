"""A long input's token maps and bars come with their margins (issue 26: Plotly's automargin
measured every label and drew each figure twice): from 33 tokens on, automargin is off on the
token axes and each margin holds at least the labels' extent as axes.label_extent estimates it
plus the axis title; a shorter input keeps Plotly's automargin, and free_margins (lecture mode)
turns it back on."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.figures.axes import label_extent
from attnviz.figures.pretrained import free_margins, qk_bars, qk_products, token_map


def figures(t: int):
    rng = np.random.default_rng(t)
    tokens = [f"token{i}" for i in range(t)]
    scores = rng.normal(size=t)
    return tokens, [
        token_map(rng.dirichlet(np.ones(t), size=t), tokens, "Layer 0, head 0"),
        qk_products(rng.normal(size=4), rng.normal(size=(t, 4)), tokens, "token0"),
        *qk_bars(scores, np.exp(scores) / np.exp(scores).sum(), tokens),
    ]


def test_a_long_inputs_figures_carry_margins_that_hold_their_labels():
    tokens, figs = figures(64)
    for fig in figs:
        layout = fig.layout
        for axis in (layout.xaxis, layout.yaxis):  # numbers keep Plotly's, to place the title
            assert axis.automargin is (axis.categoryarray is None)
        if layout.yaxis.categoryarray is not None:  # token rows: labels, then the axis title
            assert layout.margin.l >= label_extent(tokens, layout.yaxis.tickfont.size) + 20
        if layout.xaxis.categoryarray is not None:  # token columns, turned upright
            assert layout.margin.b >= label_extent(tokens, layout.xaxis.tickfont.size) + 20
        freed = free_margins(fig)
        assert freed.layout.xaxis.automargin and freed.layout.yaxis.automargin
        assert False in (fig.layout.xaxis.automargin, fig.layout.yaxis.automargin)  # a copy


@pytest.mark.parametrize("t", [8, 32])
def test_a_short_inputs_figures_keep_plotlys_automargin(t):
    for fig in figures(t)[1]:
        assert fig.layout.yaxis.automargin is not False and fig.layout.xaxis.automargin is not False
