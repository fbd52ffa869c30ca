"""The variants' curves (attnviz.figures.variants.progress_figure) before and during a run: before
Start the one evaluation, step 0, sits at the left of axes as long as the run (it sat alone on
axes from 0 to 1); once the run has more, the axes follow the data."""

from __future__ import annotations

import numpy as np

from attnviz.figures.variants import progress_figure
from attnviz.topics.registry import scene

COLORS = {"a": "#000000", "b": "#0072b2"}


def test_before_the_run_the_axes_are_as_long_as_the_run():
    page = scene("attention-since-2017")
    values = page.values({"sv_steps": 300})
    _, views = page.compute(values, only={"sv_progress"})
    layout = views["sv_progress"].layout
    assert list(layout.xaxis.range) == [0, 300] and list(layout.xaxis2.range) == [0, 300]


def test_with_more_than_step_0_the_axes_follow_the_data():
    one = {"a": np.array([2.5, 1.0]), "b": np.array([2.4, 0.9])}
    layout = progress_figure([0, 50], one, one, COLORS).layout
    assert layout.xaxis.range is None and layout.xaxis2.range is None
    one = {"a": np.array([2.5])}
    layout = progress_figure([0], one, one, {"a": "#000000"}, 300).layout
    assert list(layout.xaxis.range) == [0, 300]
