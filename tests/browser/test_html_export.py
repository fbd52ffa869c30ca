"""A page's standalone HTML export opened from disk in Chromium with every network request
refused: plotly.js is inside the file, so each figure renders, and the head view draws its
tokens; nothing is fetched."""

from __future__ import annotations

import pytest

import attnviz as av

pytestmark = pytest.mark.browser


def test_an_exported_view_renders_offline(page, tmp_path):
    view = av.scene("text", ta_text="The <b>cat</b> sat on the mat.", ta_heads=2)
    out = tmp_path / "view.html"
    view.export_html(out)
    asked: list[str] = []

    def refuse_network(route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    page.route("**", refuse_network)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(out.as_uri())
    page.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
        arg=len(view.views()),
        timeout=20_000,
    )
    assert page.locator(".js-plotly-plot").count() == len(view.views())
    assert page.locator(".head-view svg g.tok").count() == 2 * len(view.result.attention.tokens)
    assert page.locator("b").count() == 0  # the typed markup stayed text
    assert errors == [] and asked == []
