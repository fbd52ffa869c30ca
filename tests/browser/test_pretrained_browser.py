"""The pretrained explorer in Chromium: the model view draws, a slider changes the head, a click
on a query token in the head view picks the query of the query/key view."""

from __future__ import annotations

import pytest

from tests.support.browser import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser


def test_model_view_and_head_slider(page, app_url):
    open_app_page(page, app_url, "pretrained")
    page.wait_for_selector(".js-plotly-plot", timeout=60_000)
    assert page.get_by_text("Model view: 6 layers").count() >= 1
    head = page.locator("[data-testid='stSlider'] input[type='range'][aria-label='head']")
    head.focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    assert page.get_by_text("Layer 0, head 1").count() >= 1
    assert "pe_head=1" in page.url
    token = page.locator(".hv svg g.q").nth(3)  # the left column: query tokens
    token.scroll_into_view_if_needed()
    token.click()
    page.wait_for_function("() => location.search.includes('pe_query=3')", timeout=20_000)
    wait_idle(page)
    picked = token.locator("text").text_content()
    assert page.get_by_text(f"Query token: '{picked}'").count() == 1
    assert_no_exception(page, "pretrained-after")
