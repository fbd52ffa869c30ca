"""Lecture mode keeps every number normal mode shows: each heat map of every scene's views (at
its defaults and every preset) that prints its cells' numbers still prints them, each the cell's
value to the decimals it shows, once lecture mode enlarges the fonts (lecture.scale_fonts)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures.lecture import scale_fonts
from attnviz.topics.registry import page_tables, scene
from attnviz.ui.common.settings import GlobalSettings

LECTURE = GlobalSettings("cpu", 0, lecture=True, export_format="png").font_scale
CASES = [
    pytest.param(url, preset, id=f"{url}-{preset or 'defaults'}")
    for url, table in page_tables().items()
    if url != "pretrained"  # its maps are token × token, never numbered
    for preset in (None, *table.presets)
]


def numbered(fig: go.Figure) -> list:
    return [t for t in fig.data if t.type == "heatmap" and (t.text is not None or t.texttemplate)]


def words(trace) -> bool:
    """A map whose cells are labelled with words (the logit lens' top tokens), not numbers."""
    cells = [text for row in trace.text for text in row if text]
    return any(not _number(text) for text in cells)


def _number(text: str) -> bool:
    try:
        float(text.replace("−", "-"))
    except ValueError:
        return False
    return True


def assert_cells_say_their_values(trace, where: str) -> None:
    z = np.asarray(trace.z, dtype=np.float64)
    for r, row in enumerate(trace.text):
        for c, text in enumerate(row):
            if not np.isfinite(z[r, c]):
                continue
            decimals = len(text.split(".")[1]) if "." in text else 0
            shown = float(text.replace("−", "-"))
            assert abs(shown - z[r, c]) <= 0.5 * 10**-decimals + 1e-9, (where, r, c, text, z[r, c])


@pytest.mark.parametrize(("url", "preset"), CASES)
def test_lecture_mode_keeps_every_number_normal_mode_shows(url, preset):
    page = scene(url)
    _, views = page.compute(page.values(page.table.preset(preset) if preset else None))
    for name, fig in views.items():
        normal = len(numbered(fig))
        lecture = numbered(scale_fonts(go.Figure(fig), LECTURE))
        assert len(lecture) == normal, (
            f"{url} {name}: {normal} numbered maps, {len(lecture)} in lecture mode"
        )
        for before, trace in zip(numbered(fig), lecture, strict=True):
            if trace.text is not None and words(before):  # labels: kept as they are
                assert np.array_equal(np.asarray(trace.text), np.asarray(before.text)), name
            elif trace.text is not None:  # else a template prints z itself ("%{z:.2f}")
                assert_cells_say_their_values(trace, f"{url} {name}")
