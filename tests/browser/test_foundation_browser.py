"""The foundation pages in headless Chromium at 1280×720 in lecture mode: the step-by-step
view follows ←/→; clicking the key plane moves the query. (That no button label or figure title
is cut and that the main figure and the first slider are in the first screen is checked on every
page in lecture mode: tests/browser/test_lecture_mode.py.)"""

from __future__ import annotations

import pytest

from tests.support.browser import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser
LECTURE = "?sidebar_lecture=true"


@pytest.fixture
def small(page):
    page.set_viewport_size({"width": 1280, "height": 720})
    return page


def step_headings(page) -> list[str]:
    return [h for h in page.locator("h4").all_inner_texts() if h.startswith("Step ")]


def test_arrow_keys_move_the_revealed_step(small, app_url):
    open_app_page(small, app_url, "self-attention", LECTURE + "&sa_reveal=z")
    assert step_headings(small) == ["Step 1: z"]
    small.locator("body").press("ArrowRight")
    wait_idle(small)
    assert step_headings(small) == ["Step 1: z", "Step 2: Q, K, V"]
    small.keyboard.press("ArrowRight")
    wait_idle(small)
    assert len(step_headings(small)) == 3
    small.keyboard.press("ArrowLeft")
    wait_idle(small)
    assert len(step_headings(small)) == 2
    assert_no_exception(small, "self-attention-keys")


def test_clicking_the_key_plane_moves_the_query(page, app_url):
    """The plane's click targets are invisible points 0.2 apart (attnviz.figures.select): a click
    on the upper right of the plane moves the query there, sliders and URL too."""
    open_app_page(page, app_url, "soft-select", "?ss_q1=-1&ss_q2=-1")
    plane = page.locator(".st-key-ss_plane .js-plotly-plot .nsewdrag").first  # under the results
    plane.scroll_into_view_if_needed()
    area = plane.bounding_box()
    page.mouse.click(area["x"] + area["width"] * 0.75, area["y"] + area["height"] * 0.25)
    page.wait_for_function("() => !location.search.includes('ss_q1=-1')", timeout=20_000)
    wait_idle(page)
    sliders = page.locator("[data-testid='stMain'] [data-testid='stSlider'] input[type='range']")
    q1, q2 = (float(sliders.nth(i).get_attribute("value")) for i in range(2))
    assert q1 > 0.5 and q2 > 0.5, (q1, q2)
    assert f"ss_q1={q1:g}" in page.evaluate("location.search")
    assert_no_exception(page, "soft-select-plane-click")
