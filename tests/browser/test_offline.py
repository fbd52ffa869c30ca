"""No request leaves the machine: every page of the navigation is opened with its requests
recorded, normally (tests/browser/test_every_page.py) and in lecture mode with high contrast at
both projector sizes (tests/browser/test_lecture_mode.py), and may ask only the local server
(data: and blob: URLs are in-page). Here: the filter those tests use."""

from __future__ import annotations

from tests.support.browser import foreign


def test_foreign_filter_itself():
    urls = ["http://127.0.0.1:8501/x", "data:image/png;base64,AA", "blob:http://localhost/1"]
    assert foreign(urls) == []
    assert foreign(["https://fonts.gstatic.com/s/i/x.svg"]) == [
        "https://fonts.gstatic.com/s/i/x.svg"
    ]
