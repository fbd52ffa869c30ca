"""Every page's scene, without Streamlit: it runs from its defaults and from every preset and
gives its views; values read links as the widgets do; the pure parameter tables round-trip
through URL text. Scenes come from the registry, so a new page is covered without new tests."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.topics.registry import all_pages, page_tables, scene, scene_urls
from attnviz.topics.scene import SceneInputError
from attnviz.topics.soft_select.select import example_table

MENUS = ("home", "lessons")  # pages that list other pages (and lessons) and set nothing
TABLES = page_tables()
SLOW = {"pretrained"}  # loads a real model: seconds, not milliseconds


def test_every_page_but_the_menus_has_a_scene():
    assert list(scene_urls()) == [p.url for p in all_pages() if p.url not in MENUS]


def _cases() -> list:
    out = []
    for url, table in TABLES.items():
        marks = [pytest.mark.slow] if url in SLOW else []
        for preset in (None, *table.presets):
            out.append(pytest.param(url, preset, id=f"{url}-{preset or 'defaults'}", marks=marks))
    return out


@pytest.mark.parametrize(("url", "preset"), _cases())
def test_scene_runs_from_defaults_and_every_preset(url, preset):
    page = scene(url)
    values = page.values(page.table.preset(preset) if preset else None)
    result, views = page.compute(values)
    assert page.main_view in views, f"{url}: main view {page.main_view!r} not among {list(views)}"
    for name, fig in views.items():
        assert isinstance(fig, go.Figure), f"{url} view {name} is a {type(fig).__name__}"
        assert fig.data, f"{url} view {name} draws nothing"
    for name, answer in page.answers(result, values).items():
        assert answer.answer in answer.options, f"{url} answer {name}: {answer}"
    only = page.views(result, values, only={page.main_view})
    assert list(only) == [page.main_view]


@pytest.mark.parametrize("url", list(TABLES))
def test_scene_try_this_is_the_page_table_s(url):
    from attnviz.topics.registry import params_module

    assert scene(url).try_this == tuple(params_module(url).TRY_THIS)


@pytest.mark.parametrize("url", list(TABLES))
def test_every_parameter_round_trips_through_url_text(url):
    """Pure table: each URL parameter's other value written as the URL writes it reads back
    as itself, through the scene's `values_from_query` as a link opens the page."""
    page = scene(url)
    for param in page.table.params:
        if not param.url:
            continue
        value = param.other_value()
        assert param.from_url_text(param.url_text(value)) == value, param.key
        assert page.values_from_query({param.key: param.url_text(value)})[param.key] == value


@pytest.mark.parametrize("url", list(TABLES))
def test_presets_set_every_parameter_and_defaults_are_valid(url):
    table = TABLES[url]
    for name in table.presets:
        state = table.preset(name)
        assert sorted(state) == sorted(table.keys), name
        assert all(table[key].valid(value) for key, value in state.items()), name
    assert all(param.valid(param.default) for param in table.params)


def test_values_refuse_unknown_settings_and_invalid_values():
    page = scene("soft-select")
    with pytest.raises(SceneInputError, match="no setting"):
        page.values(ss_nope=1)
    with pytest.raises(SceneInputError, match="not a valid value"):
        page.values(ss_temp=0.123)
    assert page.values(seed=7)["seed"] == 7
    garbled = {"ss_temp": "hot", "ss_q1": "inf", "seed": "1e309", "ss_score": "dot"}
    assert page.values_from_query(garbled) == page.values(), "a garbled link opens the defaults"


def test_soft_select_scene_matches_the_softmax_written_out():
    """Oracle: the example table's weights as softmax(q·k / T) computed here from its numbers."""
    page = scene("soft-select")
    values = page.values(ss_q1=0.9, ss_q2=-0.8, ss_temp=0.5, ss_score="dot")
    out, views = page.compute(values)
    keys = example_table()[["key 1", "key 2"]].to_numpy(dtype=float)  # the data, not the math
    logits = keys @ np.array([0.9, -0.8]) / 0.5
    expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    np.testing.assert_allclose(out.select.weights, expected, rtol=1e-6)
    drawn = np.asarray(views["weights"].data[0].y, dtype=float)
    np.testing.assert_allclose(drawn, expected, rtol=1e-5)
    top = page.answers(out, values)["top_key"]
    assert top.answer == out.names[int(np.argmax(logits))]


def test_a_bad_table_is_a_message_not_a_traceback():
    page = scene("soft-select")
    with pytest.raises(SceneInputError, match="could not be read"):
        page.compute(page.values(ss_table="not a table"))
