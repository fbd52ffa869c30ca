"""Browser-test fixtures: the real app served by `streamlit run`, Chromium from Debian.

`app_url` starts one server for the whole test session (tests/support/server.py); pytest-
playwright's `page` fixture gives a fresh page per test, launched with /usr/bin/chromium
(tests/support/browser.py: browsers cannot be downloaded). Screenshots go to
artifacts/screenshots (ignored by git). Helpers live in tests/support/, not here.
"""

from __future__ import annotations

import pytest

from tests.support import server
from tests.support.browser import SHOTS, VIEWPORT, launch_args, warm_up
from tests.support.pages import ROOT


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    try:
        return {**browser_type_launch_args, **launch_args()}
    except FileNotFoundError as err:
        pytest.fail(str(err))


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": VIEWPORT}


@pytest.fixture(scope="session")
def app_server(browser):
    """The one server of the test session (its `pid` and `url`); its log: artifacts/streamlit.log."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    with server.serving(ROOT / "artifacts" / "streamlit.log") as app:
        warm_up(browser, app.url)
        yield app


@pytest.fixture(scope="session")
def app_url(app_server):
    return app_server.url
