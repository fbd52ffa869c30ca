"""Space on a training page just opened, before any click (issue 25, item 8): the app shown in
a frame of a same-origin page that holds the keyboard focus (the page never clicked). Space
typed into a text field of that page stays there; Space anywhere else presses Start
(attnviz/ui/static/keyboard_focus.js). One page load."""

from __future__ import annotations

import re

import pytest

from tests.support.browser import IDLE

pytestmark = pytest.mark.browser

FRAMING = """<!doctype html><title>slides</title>
<input id="typed" aria-label="notes">
<iframe id="app" src="{src}" style="width:1280px;height:720px;border:0"></iframe>"""
STEPS = re.compile(r"step \d+ of \d+")


def test_space_starts_training_on_a_page_never_clicked(page, app_url):
    src = f"{app_url}/kernel-smoother?ks_steps=20000"  # long: still running when checked
    host = f"{app_url}/slides-with-the-app"
    page.route(
        host, lambda route: route.fulfill(content_type="text/html", body=FRAMING.format(src=src))
    )
    page.set_viewport_size({"width": 1300, "height": 800})
    page.goto(host)
    app = page.frame_locator("#app")
    frame = page.frame(url=re.compile(r"kernel-smoother"))
    frame.wait_for_selector(IDLE, timeout=60_000)
    start = app.get_by_role("button", name=re.compile(r"^Start"))
    start.wait_for(timeout=60_000)
    frame.wait_for_timeout(800)  # the helper mounts with the buttons

    page.focus("#typed")
    page.keyboard.press("Space")  # typed into the framing page's text field: not taken
    page.wait_for_timeout(1500)
    assert page.input_value("#typed") == " "
    assert app.get_by_text(STEPS).count() == 0, "a key typed into a text field started a run"

    page.evaluate("document.activeElement.blur()")  # the page holds the focus, not the app
    assert page.evaluate("document.activeElement === document.body")
    page.keyboard.press("Space")
    try:
        app.get_by_text(STEPS).first.wait_for(timeout=20_000)
    finally:
        stop = app.get_by_role("button", name=re.compile(r"^Stop"))
        if stop.is_enabled():
            stop.click()  # the worker is free for the next tests
    assert page.evaluate("scrollY") == 0, "Space was taken by the app, not scrolled"
