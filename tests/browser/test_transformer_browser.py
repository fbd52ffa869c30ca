"""The live transformer page in Chromium: preset, Start, curves grow, timeline, and the model's
prediction for inputs typed into "Try your own input"."""

from __future__ import annotations

import re

import pytest

from tests.support.browser import assert_no_exception, open_app_page, plotly_traces, wait_idle

pytestmark = pytest.mark.browser

GRID_ROWS = """(el) => [...el.querySelectorAll('[role=row]')]
  .map((r) => [...r.querySelectorAll('[role=gridcell]')].map((c) => c.textContent.trim()))
  .filter((r) => r.length)"""


def try_input(page, text: str) -> list[tuple[str, str]]:
    """Type `text` into "input tokens"; the (input, model output) rows the page then shows."""
    box = page.get_by_label("input tokens")
    box.fill(text)
    box.press("Enter")
    wait_idle(page)
    table = page.locator("[data-testid='stDataFrame']").filter(has_text="model output").last
    table.scroll_into_view_if_needed()
    rows = table.evaluate(GRID_ROWS)
    return [(row[-2], row[-1]) for row in rows]


def test_preset_train_scrub_predict(page, app_url):
    open_app_page(page, app_url, "train-transformer", "?tt_steps=300")
    page.get_by_role("button", name="Reverse: 1 layer, 1 head").click()
    wait_idle(page)
    page.get_by_role("button", name=re.compile(r"^Start")).click()  # "Start Space": its shortcut
    page.wait_for_function("() => document.body.innerText.includes('done —')", timeout=180_000)
    wait_idle(page)
    assert page.get_by_text("Layer 0: attention of each head").count() >= 1
    timeline = page.locator(
        "[data-testid='stSlider'] input[type='range']"
        "[aria-label='Timeline: show the model at step']"
    )
    timeline.focus()
    page.keyboard.press("Home")
    wait_idle(page)
    assert timeline.get_attribute("aria-valuetext") == "0"
    page.keyboard.press("End")  # back to the trained model
    wait_idle(page)
    for typed in ("1 2 3 4 5 6 7 8", "8 1 7 2 6 3 5 4"):
        tokens = typed.split()
        rows = try_input(page, typed)
        assert [row[0] for row in rows] == tokens, rows  # the table follows the typed input
        try_map = plotly_traces(page, "Layer 0: attention of each head")  # the last one: yours
        assert try_map[0]["x"] == tokens  # its attention map's keys are the typed tokens
        predicted = [row[1] for row in rows]
        right = sum(p == t for p, t in zip(predicted, tokens[::-1], strict=True))
        assert right >= 6, f"'{typed}' → {predicted}: the trained model reverses its input"
    assert_no_exception(page, "transformer-after")


SHOWN = """(label) => document.fonts.status === 'loaded' && [...document.querySelectorAll(
  "[data-testid='stMain'] button")].some((b) => b.offsetParent !== null
    && b.innerText.includes(label))"""
OVERFLOWING_BUTTONS = """() => [...document.querySelectorAll("[data-testid='stMain'] button")]
  .filter((b) => b.offsetParent !== null && b.scrollWidth > b.clientWidth + 1)
  .map((b) => b.innerText.trim())"""


def test_space_starts_and_pauses_training_in_lecture_mode(page, app_url):
    """At 1280×720 in lecture mode no button of the page truncates its label; Space (focus on
    the page, not in a field) presses Start, then Pause, then Resume."""
    page.set_viewport_size({"width": 1280, "height": 720})
    # slow motion: 1000 steps take 200 s, so the run is still going when Space pauses it (the
    # page polls while it runs, so it is never idle: wait for the status text, not for idle)
    query = "?sidebar_lecture=true&tt_steps=1000&tt_max_steps_per_s=5%20steps%2Fs"
    open_app_page(page, app_url, "train-transformer", query)
    assert page.evaluate(OVERFLOWING_BUTTONS) == []
    page.get_by_role("heading", name="Train a transformer live").click()
    page.keyboard.press("Space")
    page.wait_for_function("() => document.body.innerText.includes('running — step')")
    page.wait_for_function(SHOWN, arg="Pause")  # the running state's buttons, in their font
    assert page.evaluate(OVERFLOWING_BUTTONS) == []
    page.get_by_role("heading", name="Train a transformer live").click()
    page.keyboard.press("Space")
    page.wait_for_function("() => document.body.innerText.includes('paused — step')")
    # as a person would, once Resume is there: pressed while the paused state's buttons were
    # still being drawn, the key was lost on a loaded machine (a CI-like run, 30 s)
    page.wait_for_function(SHOWN, arg="Resume")
    page.keyboard.press("Space")
    page.wait_for_function("() => document.body.innerText.includes('running — step')")
    assert_no_exception(page, "transformer-space")
    page.get_by_role("button", name="Reset", exact=True).click()
    wait_idle(page)
