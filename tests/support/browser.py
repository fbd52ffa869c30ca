"""Browser helpers (Playwright with Debian's Chromium) shared by the browser tests and benchmarks:
how to launch Chromium, open a page of the app, wait for a rerun to finish, check for exceptions.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.pages import ROOT

CHROMIUM = "/usr/bin/chromium"  # browsers cannot be downloaded here; Debian's is used
SHOTS = ROOT / "artifacts" / "screenshots"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
VIEWPORT = {"width": 1400, "height": 1000}


def launch_args(*extra: str) -> dict:
    """Keyword arguments for `chromium.launch`: Debian's Chromium, no sandbox, `extra` flags."""
    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(
            f"{CHROMIUM} is missing: install Debian's chromium (README's test command does)"
        )
    return {"executable_path": CHROMIUM, "args": ["--no-sandbox", *extra]}


def page_url(url_path: str) -> str:
    """The default page (home) lives at "/", the others at their url path."""
    return "" if url_path == "home" else url_path


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until a rerun has finished: the app reports notRunning twice in a row, 300 ms apart,
    and no placeholder skeleton is left (a just-triggered rerun gets time to start)."""
    deadline = time.time() + timeout / 1000
    calm = 0
    page.wait_for_timeout(300)
    while calm < 2:
        if time.time() > deadline:
            raise TimeoutError("the app kept running")
        idle = page.locator(IDLE).count() == 1
        skeletons = page.locator("[data-testid='stSkeleton']").count()
        calm = calm + 1 if idle and not skeletons else 0
        page.wait_for_timeout(300)


def open_app_page(page, app_url: str, url_path: str, query: str = "") -> None:
    """Go to a page of the app (`query` like "?ks_n=200") and wait until it has run."""
    page.goto(f"{app_url}/{page_url(url_path)}{query}")
    page.wait_for_selector("[data-testid='stMain']", timeout=60_000)
    wait_idle(page)


def warm_up(browser, url: str) -> None:
    """Run the app once so the navigation is known: a deep link into a server that has never
    run app.py shows Streamlit's "Page not found" dialog (a first-start race)."""
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("[data-testid='stMain']", timeout=90_000)
    wait_idle(page, timeout=90_000)
    page.close()


def assert_no_exception(page, name: str) -> None:
    """No "Page not found" and no exception box; a screenshot `name`.png goes to SHOTS."""
    assert page.get_by_text("Page not found").count() == 0, "Streamlit could not find the page"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)
    errors = page.locator("[data-testid='stException']")
    assert errors.count() == 0, errors.first.inner_text()[:2000]


PLOTLY_DATA = """(title) => {
  const plain = (el) => ((el.layout.title || {}).text || '').replace(/<[^>]*>/g, '');
  const found = [...document.querySelectorAll('.js-plotly-plot')]
    .filter((el) => el.layout && el._fullData && plain(el).startsWith(title));
  if (!found.length) return null;
  return found[found.length - 1]._fullData.map((t) => ({
    x: t.x ? Array.from(t.x) : null, y: t.y ? Array.from(t.y) : null}));
}"""


def plotly_traces(page, title_start: str) -> list[dict] | None:
    """x and y of every trace of the last drawn Plotly figure whose title (Streamlit's theme
    wraps it in <b>; tags are dropped) starts with `title_start`; None if there is none."""
    return page.evaluate(PLOTLY_DATA, title_start)
