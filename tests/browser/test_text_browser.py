"""The text page in Chromium: type a sentence, switch tokenizer and heads, hover the head view."""

from __future__ import annotations

import pytest

from tests.browser.conftest import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser


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
    view = page.locator(".js-plotly-plot", has_text="Head view").first
    view.scroll_into_view_if_needed()
    box_ = view.bounding_box()
    page.mouse.move(box_["x"] + box_["width"] * 0.3, box_["y"] + 80)
    page.wait_for_timeout(300)
    assert_no_exception(page, "text-after")
