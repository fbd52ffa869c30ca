"""A lecturer's walk of the bundled lessons, for a person to look at: every step in presenter
mode at 1280×720 against a real `streamlit run`, walked with Next as a lecturer does; a
screenshot per step once its stage has settled (and after Reveal where it asks a question),
then one contact sheet per lesson: every step's screenshot, numbered, in a grid. Images go to
artifacts/screenshots/lessons/<lesson>/ and artifacts/screenshots/lessons/<lesson>.png. Runs
are not started (scripts/stage_runs.py looks at the steps that train: 1 s, 5 s and the end).

    python -m scripts.lesson_sheets [04 07 ...]      # lessons by number (default: every one)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from attnviz.lessons.loader import bundled_lessons
from tests.support import server
from tests.support.browser import SHOTS, instrument, launch_args, page_url, wait_idle, warm_up

OUT = SHOTS / "lessons"
PROJECTOR = {"width": 1280, "height": 720}
THUMB = (640, 360)  # px: half the projector's size
COLUMNS = 4
SETTLED = "(where) => document.documentElement.getAttribute('data-stage-settled') === where"
READY = "(where) => document.documentElement.getAttribute('data-stage-step') === where"


def settled(tab, where: str) -> str:
    """Wait for the stage of `where` ("<slug>:<n>") to be ready and settled; what happened."""
    start = time.monotonic()
    try:
        tab.wait_for_function(READY, arg=where, timeout=60_000)
    except PlaywrightTimeout:
        return "not ready after 60 s"
    try:
        tab.wait_for_function(SETTLED, arg=where, timeout=20_000)
    except PlaywrightTimeout:
        wait_idle(tab)
        return f"not settled, idle after {time.monotonic() - start:.1f} s"
    return f"settled after {time.monotonic() - start:.1f} s"


def walk(tab, url: str, slug: str, steps: list) -> list[tuple[str, Path]]:
    """Every step of one lesson: [(label, screenshot)]."""
    folder = OUT / slug
    folder.mkdir(parents=True, exist_ok=True)
    shots = []
    for number, step in enumerate(steps, 1):
        where = f"{slug}:{number}"
        if number == 1:
            tab.goto(f"{url}/{page_url(step.page)}?lesson={slug}&step={number}")
        else:
            tab.locator(".st-key-lesson_next button").click()
        how = settled(tab, where)
        wait_idle(tab)  # a stage that settled mid-run may be redrawn by the run's end
        how = settled(tab, where) if "not" not in how else how
        time.sleep(0.5)  # Plotly's last redraw after the stage's resize
        path = folder / f"{number:02d}.png"
        tab.screenshot(path=str(path))
        shots.append((f"s{number} {step.page} ({how})", path))
        print(f"{slug} step {number}: {how}", flush=True)
        if step.question is not None:  # computed options too (the page gives them)
            tab.get_by_role("button", name="Reveal").click()
            try:
                tab.get_by_text("Answer:").first.wait_for(timeout=20_000)
            except PlaywrightTimeout:
                print(f"{slug} step {number}: no answer after Reveal", flush=True)
            wait_idle(tab)
            time.sleep(0.5)
            path = folder / f"{number:02d}-revealed.png"
            tab.screenshot(path=str(path))
            shots.append((f"s{number} revealed", path))
    return shots


def sheet(slug: str, shots: list[tuple[str, Path]]) -> Path:
    """The lesson's contact sheet: each screenshot at half size under its label."""
    label_h = 22
    rows = -(-len(shots) // COLUMNS)
    out = Image.new("RGB", (COLUMNS * THUMB[0], rows * (THUMB[1] + label_h)), "white")
    draw = ImageDraw.Draw(out)
    font = ImageFont.load_default(size=16)
    for i, (label, path) in enumerate(shots):
        x, y = (i % COLUMNS) * THUMB[0], (i // COLUMNS) * (THUMB[1] + label_h)
        out.paste(Image.open(path).convert("RGB").resize(THUMB), (x, y + label_h))
        draw.text((x + 4, y + 2), label[:70], fill="black", font=font)
    path = OUT / f"{slug}.png"
    out.save(path)
    return path


def main(numbers: list[str]) -> None:
    chosen = bundled_lessons().items()
    lessons = {s: lesson for s, lesson in chosen if not numbers or s[:2] in numbers}
    with server.serving() as app, sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        warm_up(browser, app.url)
        for slug, lesson in lessons.items():
            tab = browser.new_context(viewport=PROJECTOR).new_page()
            instrument(tab)  # for wait_idle
            print(sheet(slug, walk(tab, app.url, slug, list(lesson.steps))), flush=True)
            tab.context.close()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
