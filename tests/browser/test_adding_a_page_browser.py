"""The throwaway page of tests/app/test_adding_a_page.py through the layout checker: its scene's
views in every state (defaults, each preset), styled as the app styles them, drawn in Chromium
with Streamlit's Plotly template at the width a page's full-width figure gets at 1280×720 and
1920×1080 (lecture mode) and at 390×844, and checked as every page's figures are (no two text
boxes overlap, no text cut, lecture tick labels ≥ 14 px). No file of the product is touched."""

from __future__ import annotations

import plotly.io as pio
import pytest

from tests.browser.test_layout_states import findings
from tests.support.bare_figures import draw, page_html, view_specs
from tests.support.throwaway import URL, product_status, throwaway_page

pytestmark = pytest.mark.browser
# (viewport, lecture mode, the width of a figure across the main column there, px)
WIDTHS = (("1280×720", True, 1188), ("1920×1080", True, 1806), ("390×844", False, 358))


def test_a_new_pages_figures_pass_the_layout_checker(browser, tmp_path_factory):
    template = pio.templates["streamlit"].to_plotly_json()
    before = product_status()
    jobs, who = [], []
    with throwaway_page(tmp_path_factory.mktemp("new_page")) as entry:
        states = [("defaults", {})] + [(n, dict(p)) for n, p in entry.scene.table.presets.items()]
        for viewport, lecture, width in WIDTHS:
            for label, params in states:
                for name, spec in view_specs(URL, params, lecture).items():
                    spec["layout"]["template"] = template
                    jobs.append((spec, width))
                    who.append((viewport, label, name, lecture))
    assert product_status() == before
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(page_html(tmp_path_factory.mktemp("bare")).as_uri())
    page.evaluate("document.fonts.load('16px \"Source Sans\"')")  # the app's font, not a fallback
    found = []
    for (viewport, label, name, lecture), figure in zip(who, draw(page, jobs), strict=True):
        found += [f"{viewport}, {label}, {name}: {f}" for f in findings(figure, lecture)]
    page.close()
    assert len(who) == 3 * 3 and found == [], found
