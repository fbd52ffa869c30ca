"""Shared pytest setup. Helpers live in tests/support/ (AppTest, pages, browser, server).

Every test under tests/app/ runs whole pages through AppTest (seconds each), so it is marked
`slow` here; `python -m pytest -m "not slow and not browser"` is the quick loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

APP_TESTS = Path(__file__).parent / "app"


def pytest_collection_modifyitems(items):
    for item in items:
        if APP_TESTS in item.path.parents:
            item.add_marker(pytest.mark.slow)
