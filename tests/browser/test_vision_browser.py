"""The vision page in Chromium: click a patch to make it the query, upload your own image (and a
file that is not one), and a short run that trains both models."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from tests.support.browser import (
    assert_no_exception,
    open_app_page,
    plotly_traces,
    upload,
    wait_idle,
)

pytestmark = pytest.mark.browser


def chart(page, title_part: str):
    return page.locator(".js-plotly-plot", has_text=title_part).last


@pytest.mark.try_this("vision-patches", 4)
def test_clicking_a_patch_makes_it_the_query(page, app_url):
    open_app_page(page, app_url, "vision-patches")
    grid = chart(page, "Image 0")
    grid.scroll_into_view_if_needed()
    point = grid.locator("g.points path").nth(5)  # patch 5: row 1, column 1
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    maps = chart(page, "Where the patch 5 looks")
    maps.wait_for(timeout=30_000)
    wait_idle(page)
    outlines = maps.locator("path[style*='rgb(34, 184, 207)']")  # the query's outline
    assert outlines.count() >= 8, "the query patch is outlined in every map (2 layers × 4 heads)"
    assert_no_exception(page, "vision-click")


def png_bytes(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array).save(out, format="PNG")
    return out.getvalue()


def test_your_own_image_and_a_file_that_is_not_one(page, app_url, tmp_path):
    open_app_page(page, app_url, "vision-patches")
    page.get_by_text("your own image", exact=True).click()
    wait_idle(page)
    digit = np.full((120, 120), 255, np.uint8)
    digit[20:100, 55:68] = 0  # a black "1" on white paper
    path = tmp_path / "one.png"
    path.write_bytes(png_bytes(digit))
    upload(page, path, chart(page, "your image"))
    wait_idle(page)
    traces = plotly_traces(page, "your image")
    assert traces, "the uploaded image is drawn with its patch grid"
    fake = tmp_path / "notes.png"
    fake.write_text("these are lecture notes, not a picture")
    upload(page, fake, page.get_by_text("That file cannot be used"))
    assert_no_exception(page, "vision-upload")


def test_a_short_run_draws_both_models_curves(page, app_url):
    open_app_page(page, app_url, "vision-patches", "?vi_steps=50")
    page.get_by_role("button", name="Start").first.click()
    page.get_by_text("done", exact=False).first.wait_for(timeout=90_000)
    wait_idle(page)
    names = [t.get("name") for t in plotly_traces(page, "Loss and accuracy") or []]
    assert "CNN validation accuracy" in names and "ViT validation accuracy" in names, names
    assert_no_exception(page, "vision-run")
