"""The captioning page in Chromium: upload your own picture (and a file that is not one, whose
name is never read as HTML), a new random scene, and a short run whose curves and word panels
are drawn."""

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


def chart(page, title_part: str):  # -> a Playwright Locator
    return page.locator(".js-plotly-plot", has_text=title_part).last


def png_bytes(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array).save(out, format="PNG")
    return out.getvalue()


def test_your_own_picture_is_captioned_and_a_file_that_is_not_one_gets_a_message(
    page, app_url, tmp_path
):
    open_app_page(page, app_url, "captioning", "?cp_src=your+own+image")
    picture = np.zeros((200, 200, 3), np.uint8)
    picture[40:120, 60:140] = (230, 30, 30)  # a large red square on black
    path = tmp_path / "square.png"
    path.write_bytes(png_bytes(picture))
    upload(page, path, page.get_by_text("Your image.", exact=False))
    wait_idle(page)
    assert page.get_by_text("True caption").count() == 0, "an upload has no true caption"
    assert chart(page, "Where words look").count() == 1
    fake = tmp_path / "<b>notes.png"
    fake.write_text("these are lecture notes, not a picture")
    upload(page, fake, page.get_by_text("That file cannot be used"))
    assert page.locator("[data-testid='stMain'] b", has_text="notes").count() == 0
    assert_no_exception(page, "captioning-upload")


IMAGE_SOURCE = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')]
    .filter((el) => el.layout && (el.layout.title.text || '').includes('Where words look'));
  return plots.length ? plots[plots.length - 1].data[0].source : null;
}"""


def test_a_new_random_scene_changes_the_picture(page, app_url):
    open_app_page(page, app_url, "captioning", "?cp_src=a+new+random+scene")
    first = page.evaluate(IMAGE_SOURCE)
    assert first and first.startswith("data:image/png")
    for number in (1, 2):  # each click's scene in sight before the next click (in one loaded
        # full run two clicks with a wait for idle between them left no "Random scene 2")
        page.get_by_role("button", name="New scene").click()
        page.get_by_text(f"Random scene {number}", exact=False).wait_for(timeout=30_000)
        wait_idle(page)
    assert page.get_by_text("Random scene 2", exact=False).count() == 1
    assert page.evaluate(IMAGE_SOURCE) != first, "another scene, another picture"
    assert_no_exception(page, "captioning-scene")


def test_a_short_run_draws_the_curves_and_the_word_panels(page, app_url):
    open_app_page(page, app_url, "captioning", "?cp_steps=50")
    page.get_by_role("button", name="Start").first.click()
    page.get_by_text("done —", exact=False).first.wait_for(timeout=120_000)
    wait_idle(page)
    names = [t.get("name") for t in plotly_traces(page, "Loss and") or []]
    assert any("exact match" in (n or "") for n in names), names
    title = chart(page, "Where words look").locator(".gtitle").text_content()
    assert "step 50" in title, title
    assert_no_exception(page, "captioning-run")
