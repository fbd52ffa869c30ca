"""A student's link opened as the very first request after a server start lands on its page,
with its settings, and no "Page not found" dialog over it (attnviz/ui/serve.py; before the fix
the dialog stayed over the right page and held the keyboard: streamlit #9624)."""

from __future__ import annotations

import pytest

from tests.support import server
from tests.support.browser import page_url, wait_idle


@pytest.mark.browser
def test_a_deep_link_as_the_first_request_lands_on_its_page(browser):
    with server.serving(None) as fresh:  # a server no one has visited yet
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        try:
            page.goto(f"{fresh.url}/{page_url('soft-select')}?ss_temp=0.2")
            page.wait_for_selector("[data-testid='stMain']", timeout=60_000)
            wait_idle(page)
            assert page.get_by_text("Page not found").count() == 0
            assert page.locator("h1").first.inner_text().startswith("Soft select")
            slider = page.locator("[data-testid='stSlider']").filter(has_text="temperature T")
            shown = slider.inner_text().split()  # label, value, low end, high end
            assert shown[shown.index("T") + 1] == "0.2"  # the link's temperature, not 1.0
        finally:
            page.close()
