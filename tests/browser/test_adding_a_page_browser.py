"""The throwaway page of tests/app/test_adding_a_page.py through the layout checker: its scene's
views in every state (defaults, each preset), styled as the app styles them, drawn in Chromium at
the width and with the template the app gives a main figure at 1280×720, 1920×1080 (lecture
mode) and 390×844, and checked as every page's figures are (no two text boxes overlap, no text
cut, lecture tick labels ≥ 14 px). No file of the product is touched."""

from __future__ import annotations

import pytest

from tests.browser.test_layout_states import VIEWS, findings
from tests.support.bare_figures import draw, page_html, view_specs
from tests.support.throwaway import URL, product_status, throwaway_page

pytestmark = pytest.mark.browser
MODEL = "soft-select"  # a page whose first figure spans the stage as a new page's would


def test_a_new_pages_figures_pass_the_layout_checker(browser, page_probe, tmp_path_factory):
    before = product_status()
    jobs, who = [], []
    with throwaway_page(tmp_path_factory.mktemp("new_page")) as entry:
        states = [("defaults", {})] + [(n, dict(p)) for n, p in entry.scene.table.presets.items()]
        for vp, query in VIEWS:
            real = page_probe(MODEL, vp, query)["text"]
            box = real["figures"][0]["box"]
            for label, params in states:
                for name, spec in view_specs(URL, params, bool(query)).items():
                    spec["layout"]["template"] = real["template"]
                    jobs.append((spec, box["right"] - box["left"]))
                    who.append((vp["width"], label, name, bool(query)))
    assert product_status() == before
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(page_html(tmp_path_factory.mktemp("bare")).as_uri())
    found = []
    for (width, label, name, lecture), figure in zip(who, draw(page, jobs), strict=True):
        found += [f"{width} px, {label}, {name}: {f}" for f in findings(figure, lecture)]
    page.close()
    assert len(who) == 3 * 3 and found == [], found
