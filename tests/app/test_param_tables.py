"""Every page's parameter table bound to its widgets: a link reaches the widgets and stays in the
address bar, presets set every parameter in any order, Reset restores the defaults. One page run
per packed link (the pure round trips are checked without pages: tests/engine/test_scenes.py).
Pages come from the navigation."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from attnviz.topics.params import PageParams, Param
from attnviz.topics.registry import all_pages, page_tables
from tests.support.apptest import no_exception, open_page
from tests.support.pages import ROOT

MENUS = ("home", "lessons")  # pages that list other pages (and lessons) and set nothing
PAGES = {p.url: p.script for p in all_pages() if p.url not in MENUS}
TABLES = page_tables()


def test_every_page_but_the_menus_has_a_parameter_table():
    assert sorted(TABLES) == sorted(PAGES)


def state_of(at, table: PageParams) -> dict:
    """The parameters' values in session state (a multi-choice widget keeps a list)."""
    values = {key: at.session_state[key] for key in table.keys if key in at.session_state}
    return {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}


def link_batches(table: PageParams) -> list[dict[str, Param]]:
    """The URL parameters packed into as few links as possible: each parameter at its other
    value with the settings its `shown_when` needs (under which its range is whole), never in a
    link that sets one of those settings to something else. (Each value's URL text round trip is
    checked on the pure table: tests/engine/test_scenes.py.)"""
    batches: list[tuple[dict[str, Param], dict[str, object]]] = []
    for param in (p for p in table.params if p.url):
        needs = dict(param.shown_when)
        for members, fixed in batches:
            clash = any(fixed.get(k, v) != v for k, v in needs.items())
            clash = clash or param.key in fixed or any(k in members for k in needs)
            clash = clash or any(param.key in dict(m.shown_when) for m in members.values())
            if not clash:
                members[param.key] = param
                fixed.update(needs)
                break
        else:
            batches.append(({param.key: param}, needs))
    return [members for members, _ in batches]


@pytest.mark.parametrize("url", list(TABLES))
def test_every_url_parameter_reaches_its_widget_and_back(url):
    """A link that sets the page's parameters (packed into a few links) opens the page with each
    widget holding its value, and the address bar keeps each as the URL writes it."""
    table = TABLES[url]
    for members in link_batches(table):
        query = {}
        for param in members.values():
            query |= {key: table[key].url_text(v) for key, v in param.shown_when}
        query |= {key: p.url_text(p.other_value()) for key, p in members.items()}
        at = open_page(PAGES[url], query=query)
        no_exception(at)
        state = state_of(at, table)
        for key, param in members.items():
            assert state[key] == param.other_value(), (key, query)
            shown = at.query_params[key]
            shown = [shown] if isinstance(shown, str) else list(shown)
            wanted = param.url_text(param.other_value())
            assert shown == (wanted if isinstance(wanted, list) else [wanted]), key


@pytest.mark.parametrize("url", [url for url, table in TABLES.items() if table.presets])
def test_presets_in_any_order_then_reset_each_set_every_parameter(url):
    """Starting far from both the presets and the defaults, each preset, pressed after the
    others (forwards, then backwards), sets its whole scene (also where a slider's range changes
    with it), and Reset after them all restores the defaults and empties the URL."""
    table = TABLES[url]
    at = open_page(PAGES[url])
    for param in table.params:
        if param.key in at.session_state and not param.shown_when:
            other = param.other_value()
            at.session_state[param.key] = list(other) if isinstance(other, tuple) else other
    at.run()
    for name in [*table.presets, *reversed(table.presets)]:
        at.button(key=f"{table.prefix}_preset_{name}").click().run()
        no_exception(at)
        wanted = table.preset(name)
        assert state_of(at, table) == {k: wanted[k] for k in state_of(at, table)}, name
    at.button(key=f"{table.prefix}_reset_page").click().run()
    no_exception(at)
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
    expected = {"device": "cpu", "seed": 7, "lecture": True, "contrast": False, "tables": False}
    expected |= {"export": "svg"}
    assert state_of(at, SIDEBAR) == expected
    assert {k: at.query_params[k] for k in query} == query
