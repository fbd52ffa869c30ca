"""Each page shows its scene: what the scene computes outside Streamlit at the defaults is what
the page draws (every view, the same Plotly figure: the same structure and text, numbers equal
to float32 rounding) and the answers it publishes for lessons. Pages come from the registry, so
a new page is covered without new tests."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnviz.topics.registry import all_pages, scene, scene_urls
from attnviz.ui.lecture.answers import FACTS
from tests.support.apptest import figures, no_exception, open_page, plotly_array

PATHS = {p.url: p.script for p in all_pages()}


def difference(a, b, path: str = "") -> str | None:
    """Where two figure dicts differ ("" path: the root), or None when they are the same up to
    float rounding."""
    if isinstance(a, dict) and "bdata" in a and isinstance(b, dict) and "bdata" in b:
        x, y = plotly_array(a).astype(float), plotly_array(b).astype(float)
        if x.shape != y.shape:
            return f"{path}: shapes {x.shape} != {y.shape}"
        scale = np.nanmax(np.abs(y)) if y.size and not np.isnan(y).all() else 1.0
        if np.allclose(x, y, rtol=1e-4, atol=1e-5 * scale, equal_nan=True):
            return None  # (a CPU gradient through a convolution differs run to run in 1e-6)
        return f"{path}: arrays differ by up to {np.nanmax(np.abs(x - y)):.3g} (scale {scale:.3g})"
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a.keys() ^ b.keys())}"
        return next((d for k in a if (d := difference(a[k], b[k], f"{path}/{k}"))), None)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return next(
            (
                d
                for i, (x, y) in enumerate(zip(a, b, strict=True))
                if (d := difference(x, y, f"{path}[{i}]"))
            ),
            None,
        )
    if isinstance(a, float) and isinstance(b, float):
        return None if np.isclose(a, b, rtol=1e-6) else f"{path}: {a} != {b}"
    return None if a == b else f"{path}: {str(a)[:60]!r} != {str(b)[:60]!r}"


@pytest.mark.parametrize("url", list(scene_urls()))
def test_the_page_draws_every_view_of_its_scene(url):
    page = scene(url)
    result, views = page.compute()
    at = open_page(PATHS[url])
    no_exception(at)
    drawn = figures(at)
    for name, fig in views.items():
        computed = json.loads(fig.to_json())
        found = [difference(computed, shown) for shown in drawn]
        assert None in found, f"{url}: view {name} is not drawn as computed: {found}"
    published = at.session_state[FACTS] if FACTS in at.session_state else {}  # noqa: SIM401
    answers = page.answers(result, page.values())
    assert published.keys() == answers.keys()
    for name, want in answers.items():  # the head's row (attention_row) to float rounding
        got = published[name]
        assert (got.answer, got.options) == (want.answer, want.options), name
        assert (got.weights is None) == (want.weights is None), name
        assert want.weights is None or np.allclose(got.weights, want.weights, atol=1e-6), name
