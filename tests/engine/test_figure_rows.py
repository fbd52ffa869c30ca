"""Heatmaps with many rows grow tall enough that every shown row label has its own line, also
after lecture-mode scale_fonts (issue 10: 56 kernel samples or 40 tokens overprinted their
labels in the default 450 px)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures import base, text
from attnviz.figures.kernel import weight_matrix


def row_room(fig: go.Figure) -> float:
    """px per shown row label: the plot height (height − top margin − 100 px for the x labels
    and title below) over the number of y tick labels."""
    plot = (fig.layout.height or 450) - (fig.layout.margin.t or 0) - 100
    return plot / len(fig.layout.yaxis.tickvals)


@pytest.mark.parametrize("t", [8, 30, 40, 56, 64, 200])
def test_every_row_label_has_its_line(t):
    labels = [f"s{i}" for i in range(t)]
    fig = base.heatmap(np.eye(t), labels, labels, title="t")
    assert row_room(fig) >= fig.layout.yaxis.tickfont.size + 2
    lecture = base.scale_fonts(go.Figure(fig), 1.6)
    assert row_room(lecture) >= lecture.layout.yaxis.tickfont.size + 2


def test_kernel_weight_matrix_and_token_map_grow():
    order = np.arange(56)
    fig = weight_matrix(np.eye(56), order)
    assert fig.layout.height > 450 and row_room(fig) >= fig.layout.yaxis.tickfont.size + 2
    toks = [f"w{i}" for i in range(40)]
    small = text.weights_map(np.eye(8), toks[:8], "few")
    assert small.layout.height is None  # a few rows keep the default height
    assert text.weights_map(np.eye(40), toks, "many").layout.height > 450
