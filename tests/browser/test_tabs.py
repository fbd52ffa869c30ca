"""A tab reused by the next browser test is as a new tab would be (tests/support/tabs.py): nothing
stored for the app's origin, the viewport as new, and a tab that kept state is not reused."""

from __future__ import annotations

import pytest

from tests.support.browser import VIEWPORT, open_app_page
from tests.support.tabs import reset

pytestmark = pytest.mark.browser
STORED = "() => localStorage.length + sessionStorage.length"


def test_a_reset_tab_keeps_nothing_of_its_test_and_one_with_a_listener_is_not_reused(page, app_url):
    open_app_page(page, app_url, "home")
    by_the_app = page.evaluate(STORED)  # what Streamlit itself stores
    page.evaluate("() => { localStorage.setItem('a', '1'); sessionStorage.setItem('b', '2'); }")
    page.set_viewport_size({"width": 500, "height": 400})
    assert page.evaluate(STORED) == by_the_app + 2
    assert reset(page, VIEWPORT)
    assert page.url == "about:blank"
    page.goto(f"{app_url}/_stcore/health")  # the app's origin again, in the same tab
    assert page.evaluate(STORED) == 0  # a document that stores nothing itself
    assert page.viewport_size == VIEWPORT
    page.on("console", lambda message: None)  # outlives a navigation: this tab is closed
    assert not reset(page, VIEWPORT)
