"""Screenshots of every page (or the ones named) as a lecturer and a student see them: 1280×720
in lecture mode, 1920×1080, and a phone (390×844), against a real `streamlit run`; each notes
exceptions and horizontal scrolling. Images go to artifacts/screenshots/walk/.

    python -m scripts.screenshots [url ...]
"""

from __future__ import annotations

import sys

from playwright.sync_api import sync_playwright

from attnviz.topics.registry import all_pages
from tests.support import server
from tests.support.browser import SHOTS, launch_args, open_app_page, warm_up

VIEWS = {  # name -> (viewport, query, mobile)
    "lecture-1280": ({"width": 1280, "height": 720}, "?lecture=true", False),
    "wide-1920": ({"width": 1920, "height": 1080}, "", False),
    "phone-390": ({"width": 390, "height": 844}, "", True),
}


def walk(urls: list[str]) -> None:
    out = SHOTS / "walk"
    out.mkdir(parents=True, exist_ok=True)
    with server.serving() as app, sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        warm_up(browser, app.url)
        for name, (viewport, query, mobile) in VIEWS.items():
            context = browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile)
            page = context.new_page()
            for url in urls:
                open_app_page(page, app.url, url, query)
                errors = page.locator("[data-testid='stException']").count()
                wide = page.evaluate("document.documentElement.scrollWidth > innerWidth + 1")
                page.screenshot(path=str(out / f"{url}-{name}.png"))
                print(f"{url:18} {name:13} exceptions={errors} horizontal_scroll={wide}")
            context.close()
        browser.close()


if __name__ == "__main__":
    walk(sys.argv[1:] or [p.url for p in all_pages()])
