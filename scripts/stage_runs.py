"""Walk the lesson steps that train, as a lecturer does, at 1280×720 in presenter mode against a
real `streamlit run`: open the step by its link, press Start (the recorded run replays in 20 s
where the lessons recorded it), look 1 s and 5 s after Start and at the run's end, press Reveal
where the step asks about the trained model, then press Next during a run and time the next
step's stage. Per look it prints each view's plot heights (px), whether it is greyed (stale,
opacity < 1) or empty (no drawn marks), the status line; screenshots go to
artifacts/screenshots/stage_runs/<lesson>-<step>-<when>.png.

    python -m scripts.stage_runs [04 07 ...]      # lessons by number (default: every one)
"""

from __future__ import annotations

import sys
import time

from playwright.sync_api import sync_playwright

from attnviz.lessons.recordings import lesson_jobs
from tests.support import server
from tests.support.browser import IDLE, SHOTS, launch_args, page_url, warm_up

OUT = SHOTS / "stage_runs"
LOOK = """(names) => names.map((n) => {
  const el = document.querySelector('.st-key-view_' + CSS.escape(n));
  if (!el) return [n, 'missing'];
  const r = el.getBoundingClientRect();
  const plots = [...el.querySelectorAll('.nsewdrag')]
    .map((d) => Math.round(d.getBoundingClientRect().height));
  const marks = el.querySelectorAll(
    '.trace path, .heatmaplayer image, .imagelayer image, .scatterlayer .point, image').length;
  let o = 1;
  for (let p = el; p; p = p.parentElement) o *= parseFloat(getComputedStyle(p).opacity || '1');
  const stale = el.closest('[data-stale="true"]') !== null;
  const where = `top ${Math.round(r.top)} bottom ${Math.round(r.bottom)}`;
  return [n, `${where} plots ${plots} marks ${marks}`
    + (o < 0.99 || stale ? ` GREYED(${o.toFixed(2)})` : '')
    + (r.bottom > innerHeight + 1 ? ' CUT' : '')];
})"""
STATUS = """() => {
  const m = document.body.innerText.match(
    /(running|paused|done|stopped[^—]*|queued|starting)\\s+—\\s+step\\s+\\d+\\s+of\\s+\\d+[^\\n]*/);
  return m ? m[0].slice(0, 90) : 'no status';
}"""


def look(tab, views, name: str, when: str) -> None:
    tab.screenshot(path=str(OUT / f"{name}-{when}.png"))
    found = tab.evaluate(LOOK, list(views))
    print(f"  {when:>6}: {tab.evaluate(STATUS)}")
    for view, what in found:
        print(f"          {view}: {what}")


def walk_step(tab, url: str, slug: str, number: int, step) -> None:
    name = f"{slug[:2]}-{number:02d}"
    tab.goto(f"{url}/{page_url(step.page)}?lesson={slug}&step={number}")
    ready = f"document.documentElement.getAttribute('data-stage-step') === '{slug}:{number}'"
    tab.wait_for_function(f"() => {ready}", timeout=90_000)
    tab.wait_for_selector(IDLE, timeout=90_000)  # the page drawn (no run polls yet)
    tab.wait_for_timeout(1500)
    print(f"L{slug[:2]} s{number} {step.page} {list(step.views)}")
    look(tab, step.views, name, "before")
    start = tab.locator("[class*='_start'] button").first
    if start.count() and start.is_enabled():
        start.click()
        began = time.monotonic()
        for when in (1, 5):
            tab.wait_for_timeout(max(0, (began + when - time.monotonic()) * 1000))
            look(tab, step.views, name, f"{when}s")
        try:
            tab.wait_for_function(
                "() => /(done|stopped[^—]*) — step/.test(document.body.innerText)", timeout=120_000
            )
        except Exception:
            print("  the run did not end within 120 s")
        tab.wait_for_timeout(1500)
        look(tab, step.views, name, "end")
    if step.question is not None and tab.locator(".st-key-lesson_reveal button").count():
        tab.locator(".st-key-lesson_reveal button").click()
        tab.wait_for_timeout(3000)
        look(tab, step.views, name, "reveal")


def next_during_run(tab, url: str, slug: str, number: int, step, total: int) -> None:
    """Start the step's run, then Next 2 s later: seconds until the next step's stage."""
    if number >= total:
        return
    tab.goto(f"{url}/{page_url(step.page)}?lesson={slug}&step={number}")
    ready = f"document.documentElement.getAttribute('data-stage-step') === '{slug}:{number}'"
    tab.wait_for_function(f"() => {ready}", timeout=90_000)
    tab.wait_for_selector(IDLE, timeout=90_000)
    start = tab.locator("[class*='_start'] button").first
    if not (start.count() and start.is_enabled()):
        return
    start.click()
    tab.wait_for_timeout(2000)
    began = time.monotonic()
    tab.locator(".st-key-lesson_next button").click()
    after = f"document.documentElement.getAttribute('data-stage-step') === '{slug}:{number + 1}'"
    try:
        tab.wait_for_function(f"() => {after}", timeout=60_000)
        print(f"  Next during the run of L{slug[:2]} s{number}: {time.monotonic() - began:.1f} s")
    except Exception:
        tab.screenshot(path=str(OUT / f"{slug[:2]}-{number:02d}-next-stuck.png"))
        print(f"  Next during the run of L{slug[:2]} s{number}: NOT READY after 60 s")


def main(argv: list[str]) -> None:
    from attnviz.lessons.loader import bundled_lessons

    OUT.mkdir(parents=True, exist_ok=True)
    lessons = {s: ls for s, ls in bundled_lessons().items() if not argv or s[:2] in argv}
    trains = {(slug, n) for _, _, steps in lesson_jobs().values() for slug, n in steps}
    with server.serving() as app, sync_playwright() as p:
        browser = p.chromium.launch(**launch_args())
        warm_up(browser, app.url)
        tab = browser.new_page(viewport={"width": 1280, "height": 720})
        for slug, lesson in lessons.items():
            for number, step in enumerate(lesson.steps, 1):
                if (slug, number) in trains:
                    walk_step(tab, app.url, slug, number, step)
                    next_during_run(tab, app.url, slug, number, step, len(lesson.steps))
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
