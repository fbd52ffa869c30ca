"""Each page shows its scene: what the scene computes outside Streamlit at the defaults is what
the page draws (every view, identical as Plotly JSON) and the answers it publishes for lessons.
Pages come from the registry, so a new page is covered without new tests."""

from __future__ import annotations

import json

import pytest

from attnviz.topics.registry import SCENE_MODULES, scene
from attnviz.ui.lesson_answers import FACTS
from attnviz.ui.navigation import all_pages
from tests.support.apptest import figures, no_exception, open_page

PATHS = {p.url: p.path for p in all_pages()}


@pytest.mark.parametrize("url", list(SCENE_MODULES))
def test_the_page_draws_every_view_of_its_scene(url):
    page = scene(url)
    result, views = page.compute()
    at = open_page(PATHS[url])
    no_exception(at)
    drawn = [json.dumps(fig, sort_keys=True) for fig in figures(at)]
    missing = [
        name
        for name, fig in views.items()
        if json.dumps(json.loads(fig.to_json()), sort_keys=True) not in drawn
    ]
    assert not missing, f"{url}: views not drawn as the scene computes them: {missing}"
    published = at.session_state[FACTS] if FACTS in at.session_state else {}  # noqa: SIM401
    expected = {
        k: (a.answer, list(a.options)) for k, a in page.answers(result, page.values()).items()
    }
    assert published == expected
