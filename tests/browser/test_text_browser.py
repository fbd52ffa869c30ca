"""The text page in Chromium: type a sentence, switch tokenizer and heads, hover the head view,
click a query token in it, open an experiment (its figure is built on opening)."""

from __future__ import annotations

import pytest

from tests.support.browser import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser

VISIBLE_LINES = (  # evaluated on the view's root (it may sit in a shadow DOM)
    "(root) => [...root.querySelectorAll('svg line')].filter((l) => l.style.display !== 'none')"
    ".length"
)


def test_type_switch_and_hover(page, app_url):
    open_app_page(page, app_url, "text")
    box = page.locator("[data-testid='stTextArea'] textarea").first
    box.fill("the students listened to the lecture")
    box.press("Control+Enter")
    wait_idle(page)
    assert "ta_text=the+students" in page.url or "ta_text=the%20students" in page.url
    page.locator("[data-testid='stMain']").get_by_text("char", exact=True).click()
    wait_idle(page)
    assert "ta_tok=char" in page.url
    heads = page.locator(
        "[data-testid='stSlider'] input[type='range'][aria-label='heads (d_k = d_model / heads)']"
    )
    heads.focus()
    page.keyboard.press("ArrowLeft")
    wait_idle(page)
    assert "ta_heads=2" in page.url
    view = page.locator(".hv")
    view.scroll_into_view_if_needed()
    every = view.evaluate(VISIBLE_LINES)
    token = view.locator("svg g.q").nth(4)  # a query token in the left column
    token.hover()
    page.wait_for_function(
        f"([root, every]) => ({VISIBLE_LINES})(root) < every",
        arg=[view.element_handle(), every],
        timeout=10_000,
    )
    assert "query #4" in view.locator(".hv-status").inner_text()
    token.click()
    page.wait_for_function("() => location.search.includes('ta_query=4')", timeout=20_000)
    wait_idle(page)
    page.get_by_text("(b) Why divide by √d_k? Softmax saturation").click()
    page.wait_for_function("() => location.search.includes('ta_open_sat=true')", timeout=20_000)
    saturation = page.locator(".js-plotly-plot", has_text="Entropy of attention rows")
    saturation.wait_for(timeout=20_000)
    assert_no_exception(page, "text-after")


def test_head_view_keeps_its_lines_after_clearing_the_text_and_switching_to_char(page, app_url):
    """Repro (issue 10): clear the text, type a sentence, switch to char: every head-view pill
    ended up deselected and the view drew no line. Now an empty choice draws every head."""
    open_app_page(page, app_url, "text")
    box = page.locator("[data-testid='stTextArea'] textarea").first
    box.fill("")
    box.press("Control+Enter")
    wait_idle(page)
    box.fill("the cat sat on the mat")
    box.press("Control+Enter")
    wait_idle(page)
    page.locator("[data-testid='stMain']").get_by_text("char", exact=True).click()
    wait_idle(page)
    view = page.locator(".hv")
    view.scroll_into_view_if_needed()
    assert view.evaluate(VISIBLE_LINES) > 0
    assert_no_exception(page, "text-pills")
