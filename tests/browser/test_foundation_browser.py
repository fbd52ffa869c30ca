"""The foundation pages in headless Chromium at 1280×720 in lecture mode: the step-by-step
view follows ←/→, its buttons and the pages' figure titles are never cut, and each page's
first controls and main figure are in the first screen."""

from __future__ import annotations

import pytest

from tests.support.browser import SHOTS, assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser
LECTURE = "?sidebar_lecture=true"
CUT = """els => els.filter(e => e.scrollWidth > e.clientWidth + 1
                                || e.scrollHeight > e.clientHeight + 1)
                   .map(e => e.innerText)"""


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


@pytest.mark.parametrize("url", ["soft-select", "self-attention", "kernel-smoother"])
def test_no_button_label_is_cut_and_the_main_figure_is_in_the_first_screen(small, app_url, url):
    open_app_page(small, app_url, url, LECTURE)
    small.screenshot(path=str(SHOTS / f"{url}-lecture-1280.png"))
    labels = small.locator("[data-testid='stMain'] button [data-testid='stMarkdownContainer']")
    assert labels.count() > 0
    assert labels.evaluate_all(CUT) == []
    if url == "kernel-smoother":
        return  # its main figure follows the data, model and training forms (three columns)
    figure = small.locator("[data-testid='stMain'] .js-plotly-plot").first
    box = figure.bounding_box()
    assert box is not None and box["y"] < 720, f"the first figure starts at y = {box}"
    first_widget = small.locator("[data-testid='stMain'] [data-testid='stSlider']").first
    assert first_widget.bounding_box()["y"] < 720


def test_clicking_the_key_plane_moves_the_query(page, app_url):
    """The plane's click targets are a WebGL trace (an SVG one cost 0.3 s of every redraw): a
    click on the upper right of the plane still moves the query there, sliders and URL too."""
    open_app_page(page, app_url, "soft-select", "?ss_q1=-1&ss_q2=-1")
    area = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.click(area["x"] + area["width"] * 0.75, area["y"] + area["height"] * 0.25)
    page.wait_for_function("() => !location.search.includes('ss_q1=-1')", timeout=20_000)
    wait_idle(page)
    sliders = page.locator("[data-testid='stMain'] [data-testid='stSlider'] input[type='range']")
    q1, q2 = (float(sliders.nth(i).get_attribute("value")) for i in range(2))
    assert q1 > 0.5 and q2 > 0.5, (q1, q2)
    assert f"ss_q1={q1:g}" in page.evaluate("location.search")
    assert_no_exception(page, "soft-select-plane-click")
