"""Every page's parameter table, walked: each parameter round-trips through the URL, each preset
sets every parameter, Reset restores the defaults. Pages come from the navigation."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from attnviz.topics.params import PageParams
from attnviz.topics.registry import page_tables
from attnviz.ui.navigation import all_pages
from tests.support.apptest import no_exception, open_page
from tests.support.pages import ROOT

MENUS = ("home", "lessons")  # pages that list other pages (and lessons) and set nothing
PAGES = {p.url: p.path for p in all_pages() if p.url not in MENUS}
TABLES = page_tables()


def test_every_page_but_the_menus_has_a_parameter_table():
    assert sorted(TABLES) == sorted(PAGES)


def cases(what: str) -> list:
    out = []
    for url, table in TABLES.items():
        items = table.params if what == "param" else list(table.presets)
        out += [pytest.param(url, item, id=f"{url}-{getattr(item, 'key', item)}") for item in items]
    return out


def state_of(at, table: PageParams) -> dict:
    """The parameters' values in session state (a multi-choice widget keeps a list)."""
    values = {key: at.session_state[key] for key in table.keys if key in at.session_state}
    return {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}


@pytest.mark.parametrize(("url", "param"), cases("param"))
def test_every_url_parameter_reaches_its_widget_and_back(url, param):
    if not param.url:
        pytest.skip(f"{param.key} is not kept in the URL by design")
    value = param.other_value()
    query = {key: TABLES[url][key].url_text(v) for key, v in param.shown_when}
    query[param.key] = param.url_text(value)
    at = open_page(PAGES[url], query=query)
    no_exception(at)
    assert state_of(at, TABLES[url])[param.key] == value
    shown = at.query_params[param.key]
    shown = [shown] if isinstance(shown, str) else list(shown)
    wanted = param.url_text(value)
    assert shown == (wanted if isinstance(wanted, list) else [wanted])


@pytest.mark.parametrize(("url", "preset"), cases("preset"))
def test_every_preset_sets_every_parameter_and_reset_restores_defaults(url, preset):
    table = TABLES[url]
    at = open_page(PAGES[url])
    for param in table.params:  # start far from both the preset and the defaults
        if param.key in at.session_state and not param.shown_when:
            other = param.other_value()
            at.session_state[param.key] = list(other) if isinstance(other, tuple) else other
    at.run()
    at.button(key=f"{table.prefix}_preset_{preset}").click().run()
    no_exception(at)
    wanted = table.preset(preset)
    assert state_of(at, table) == {k: wanted[k] for k in state_of(at, table)}
    at.button(key=f"{table.prefix}_reset_page").click().run()
    no_exception(at)
    defaults = table.defaults()
    assert state_of(at, table) == {k: defaults[k] for k in state_of(at, table)}
    assert not any(key in at.query_params for key in table.keys), dict(at.query_params)


@pytest.mark.parametrize("url", [url for url, table in TABLES.items() if table.presets])
def test_presets_in_a_row_then_reset_each_set_every_parameter(url):
    """Order does not matter: each preset, pressed after the others, sets its whole scene (also
    where a slider's range changes with it), and Reset after them all restores the defaults."""
    table = TABLES[url]
    at = open_page(PAGES[url])
    for name in [*table.presets, *reversed(table.presets)]:
        at.button(key=f"{table.prefix}_preset_{name}").click().run()
        no_exception(at)
        wanted = table.preset(name)
        assert state_of(at, table) == {k: wanted[k] for k in state_of(at, table)}, name
    at.button(key=f"{table.prefix}_reset_page").click().run()
    defaults = table.defaults()
    assert state_of(at, table) == {k: defaults[k] for k in state_of(at, table)}
    assert not any(key in at.query_params for key in table.keys), dict(at.query_params)


def test_the_sidebar_settings_come_from_the_link():
    """The sidebar's table (settings for every page) round-trips through the URL too."""
    from attnviz.topics.settings import TABLE as SIDEBAR

    query = {"seed": "7", "lecture": "true", "export": "svg"}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(query)
    at.run()
    no_exception(at)
    expected = {"device": "cpu", "seed": 7, "lecture": True, "contrast": False, "export": "svg"}
    assert state_of(at, SIDEBAR) == expected
    assert {k: at.query_params[k] for k in query} == query
