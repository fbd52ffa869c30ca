"""Every scene declares its views once (attnviz.topics.views.View): the declaration is sound (names
unique, one main view, aliases and sections that exist), and what `views` draws at the defaults is
the declaration read in order: every view drawn unasked there, none undeclared, none the page
draws itself; a declared view that is not drawn at the defaults is not drawn when named either
(nothing to draw for these settings, e.g. another experiment's view); no view is named as a
setting. Scenes come from the
registry, so a new page is covered without new tests."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from attnviz.topics import settings
from attnviz.topics.registry import scene, scene_urls
from attnviz.topics.scene import Scene
from attnviz.topics.views import View, asked

URLS = list(scene_urls())
SLOW = {"pretrained"}  # loads a real model (as tests/engine/test_scenes.py)


@pytest.mark.parametrize("url", URLS)
def test_the_declaration_is_sound(url):
    page = scene(url)
    names = [view.name for view in page.declared]
    assert len(set(names)) == len(names), f"{url}: a view declared twice"
    assert [v.name for v in page.declared if v.main] == [page.main_view]
    assert set(page.view_aliases) <= set(names)
    assert set(page.view_aliases.values()) <= set(names)
    keys = set(page.table.keys) | set(settings.TABLE.keys)
    assert set(page.section_views) <= keys, f"{url}: a section's toggle is no setting"
    assert all(v.build is None for v in page.declared if v.page)
    assert all(v.build is not None for v in page.declared if not v.page)
    for group in (page.page_views, page.apart_views, page.run_views):
        assert set(group) <= set(names)


@pytest.mark.parametrize("url", URLS)
def test_no_view_is_named_as_a_setting(url):
    """One name per meaning: a lesson's `views = [...]` and its settings never read alike (the
    vision page's heads map was `vi_heads`, also its number of heads)."""
    page = scene(url)
    keys = set(page.table.keys) | set(settings.TABLE.keys) | set(page.extras)
    named_twice = [view.name for view in page.declared if view.name in keys]
    assert not named_twice, f"{url}: views named as settings: {named_twice}"


def _runs() -> list:
    marks = {url: [pytest.mark.slow] if url in SLOW else [] for url in URLS}
    return [pytest.param(url, marks=marks[url], id=url) for url in URLS]


@pytest.mark.parametrize("url", _runs())
def test_views_at_the_defaults_are_the_declared_ones_in_order(url):
    page = scene(url)
    values = page.values()
    result, views = page.compute(values)
    unasked = [v.name for v in page.declared if v.build is not None and asked(v, values, None)]
    drawn = list(views)
    assert [name for name in unasked if name in views] == drawn, (
        f"{url}: drew {drawn}; the declaration, in order, asks {unasked}"
    )
    assert page.main_view in views or set(page.view_aliases) & set(views)
    assert all(isinstance(figure, go.Figure) for figure in views.values())
    for name in set(unasked) - set(views):
        assert page.views(result, values, only={name}) == {}, f"{url}: {name} named, not unasked"


def _scene(*declared: View) -> Scene:
    broken = scene("soft-select")
    return Scene(broken.url, broken.table, broken.try_this, broken.config, broken.run, declared)


def _figure(result, values) -> go.Figure:
    return go.Figure()


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ((View("a", _figure, main=True), View("a", _figure)), "declared twice: \\['a'\\]"),
        ((View("a", _figure), View("b", _figure)), "exactly one main view"),
        ((View("a", _figure, main=True), View("b", _figure, main=True)), "exactly one main"),
        ((View("a", _figure, main=True), View("b", _figure, stands_for="c")), "not declared"),
        ((View("a", _figure, main=True), View("b", _figure, page=True)), "drawn by the page"),
    ],
)
def test_a_broken_declaration_is_refused_by_name(declared, message):
    with pytest.raises(ValueError, match=message):
        _scene(*declared)
