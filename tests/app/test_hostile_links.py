"""Links a stranger could send: every URL parameter each page reads (its table's and the
sidebar's) set to garbage opens the page with no traceback, and an invalid value falls back to
its default. Pages and parameters come from the registry, so a new page is covered."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from attnviz.topics.registry import page_tables
from attnviz.topics.settings import TABLE as SIDEBAR
from tests.support.apptest import no_exception, open_page
from tests.support.pages import ROOT, app_pages

GARBAGE = (
    "inf",
    "-1e309",
    "nan",
    "x" * 10_000,
    "\x00\x1b[31m\u202e\ufeff",
    "<script>alert(1)</script>[link](http://example.com)",
)
RUNS = 3  # parameter i gets GARBAGE[(i + 2 * run) % len(GARBAGE)]: each sees three kinds
TABLES = page_tables()


def hostile_query(keys: list[str], run: int) -> dict[str, str]:
    return {key: GARBAGE[(i + 2 * run) % len(GARBAGE)] for i, key in enumerate(keys)}


@pytest.mark.parametrize(("path", "url"), [(p, u) for p, _, u in app_pages()])
def test_a_page_opened_with_garbage_in_every_parameter_shows_no_traceback(path, url):
    table = TABLES.get(url)
    keys = [p.key for p in table.params if p.url] if table else []
    for run in range(RUNS):
        at = open_page(path, query=hostile_query(keys + SIDEBAR.keys, run))
        no_exception(at)


@pytest.mark.parametrize("text", ["inf", "1e309", "-1e309", "nan", "7.5", "abc"])
def test_a_bad_seed_in_the_link_falls_back_to_the_default_with_a_notice(text):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["seed"] = text
    at.run()
    no_exception(at)
    assert at.session_state["seed"] == 0
    assert "seed" not in at.query_params
    assert any("Global seed" in t.value and "not valid" in t.value for t in at.toast)
