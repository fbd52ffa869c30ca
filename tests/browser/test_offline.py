"""No request leaves the machine: every page of the navigation, opened normally and in lecture
mode with high contrast, asks only the local server (data: and blob: URLs are in-page)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.support.browser import assert_no_exception, open_app_page, record_requests
from tests.support.pages import app_pages

PAGES = app_pages()
LOCAL = {"127.0.0.1", "localhost"}


def foreign(urls: list[str]) -> list[str]:
    """The URLs that are neither in-page (data:, blob:) nor to a local host."""
    return [
        u
        for u in urls
        if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).hostname not in LOCAL
    ]


def test_foreign_filter_itself():
    urls = ["http://127.0.0.1:8501/x", "data:image/png;base64,AA", "blob:http://localhost/1"]
    assert foreign(urls) == []
    assert foreign(["https://fonts.gstatic.com/s/i/x.svg"]) == [
        "https://fonts.gstatic.com/s/i/x.svg"
    ]


@pytest.mark.browser
@pytest.mark.parametrize(("path", "title", "url"), PAGES, ids=[u for _, _, u in PAGES])
def test_page_requests_only_the_local_server(page, app_url, path, title, url):
    seen = record_requests(page)
    for query in ("", "?lecture=true&contrast=true"):
        open_app_page(page, app_url, url, query)
        page.wait_for_timeout(1000)  # icons and fonts load after the run
        assert_no_exception(page, f"offline-{url}{'-lecture' if query else ''}")
    assert seen, "no request was recorded"
    assert not foreign(seen), f"{title} asked other hosts: {sorted(set(foreign(seen)))}"
