"""The live transformer page in Chromium: preset, Start, curves grow, timeline, a prediction."""

from __future__ import annotations

import pytest

from tests.browser.conftest import assert_no_exception, open_app_page, wait_idle

pytestmark = pytest.mark.browser


def test_preset_train_scrub_predict(page, app_url):
    open_app_page(page, app_url, "train-transformer", "?tt_steps=300")
    page.get_by_role("button", name="Reverse: 1 layer, 1 head").click()
    wait_idle(page)
    page.get_by_role("button", name="Start", exact=True).click()
    page.wait_for_function("() => document.body.innerText.includes('done —')", timeout=120_000)
    wait_idle(page)
    assert page.get_by_text("Layer 0: attention of each head").count() >= 1
    timeline = page.locator(
        "[data-testid='stSlider'] input[type='range'][aria-label='Timeline: show the model at step']"
    )
    timeline.focus()
    page.keyboard.press("Home")
    wait_idle(page)
    assert timeline.get_attribute("aria-valuetext") == "0"
    box = page.get_by_label("input tokens")
    box.fill("1 2 3 4 5 6 7 8")
    box.press("Enter")
    wait_idle(page)
    assert_no_exception(page, "transformer-after")
