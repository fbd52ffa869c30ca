"""What a person waits for, measured in Chromium against a real `streamlit run` server.

For every page in the navigation (or `--page URL ...`): open it, then move its main widget
(MAIN_WIDGETS: the one a person moves again and again; a slider by arrow keys on its thumb, a
select box by keyboard) `--moves` times and time each move from the input event to the page
being idle again, split into

    send    input event → the browser sends the rerun request on the websocket
    server  that request → the last message of the rerun arrives (the server's rerun + transfer)
    render  that message → the last DOM change or long task (the browser drawing the result)

(medians); then the pretrained page once with a 512-token and once with a 64-token input, and
the language-model page with three new ~64-token prompts (each page only when listed). It
also prints the bytes the server sent per move, the server's CPU ms per move (read from /proc,
the server process only), the cold start (process start → health check → home page
interactive) and each page's first visit (navigation → idle).

    python -m benchmarks.browser [--moves 10] [--page soft-select text] [--students 30]

With `--students N`, N simulated students (benchmarks.load, over the websocket protocol) use the
same server throughout, and each page's line adds the 95th percentile of its moves (p95 ms):
what the person at the projector waits for in a busy hall.

The timestamps come from the page itself (performance.now(), recorded by an init script that
wraps WebSocket and watches the DOM), so Playwright's own round trips do not count.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import time

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from attnviz.topics.registry import all_pages
from attnviz.ui.warm_up import DELAY_S
from benchmarks.browser_probe import (
    CALM_MS,
    PROBE,
    READ,
    RESET,
    Move,
    cpu_seconds,
    move_of,
    wait_calm,
)
from benchmarks.browser_text import LONG_TEXT, SHORT_RUNS, SHORT_TEXT, long_input, model_floor
from benchmarks.machine_speed import machine_now
from tests.support.browser import IDLE, launch_args, page_url
from tests.support.server import AppServer, start, stop, wait_healthy

SLIDER = "[data-testid='stMain'] [data-testid='stSlider'] input[type='range']:not([disabled])"
BOX = "[data-testid='stMain'] [data-testid='stSelectbox'] input"
# the widget a person moves again and again on each page (by its label); a page not listed, or
# whose widget is missing, gets its first enabled slider, else its first select box
MAIN_WIDGETS = {
    "lessons": "Look inside a lesson",
    "soft-select": "query q, dimension 1",
    "self-attention": "m patches",
    "kernel-smoother": "query x",
    "recurrent": "attention score",
    "text": "query token",
    "train-transformer": "heads",
    "vision-patches": "query",
    "captioning": "validation image",
    # the variants' shown head, stepped through after a run (its other sliders are a run's
    # settings: a window or latent size trains another model, evaluated at step 0 at once)
    "attention-since-2017": "head shown",
    "pretrained": "layer",
    "real-block": "query head",  # its Try this steps through heads 3, 4, 5 and 6
}


UNFOLD = """(el) => {  // the tab it is on, the expander it is in
  const panel = el.closest("[data-testid='stTabPanel']");
  if (panel) {
    const tabs = panel.closest("[data-testid='stTabs']");
    const own = (sel) => [...tabs.querySelectorAll(sel)]
      .filter((n) => n.closest("[data-testid='stTabs']") === tabs);
    own("[role='tab']")[own("[data-testid='stTabPanel']").indexOf(panel)].click();
  }
  const box = el.closest('details');
  if (box && !box.open) box.querySelector('summary').click();
}"""


def main_widget(page, path: str):
    """(kind, locator) of the page's main widget, or (None, None) for a page without one."""
    label = MAIN_WIDGETS.get(path)
    for kind, css in (("slider", SLIDER), ("selectbox", BOX)):
        named = page.locator(f"{css}[aria-label='{label}']")
        if label and named.count():
            return kind, named.first
    sliders = page.locator(SLIDER)
    with contextlib.suppress(PlaywrightTimeout):  # the page has no slider
        sliders.first.wait_for(state="attached", timeout=5000)
    if sliders.count():
        return "slider", sliders.first
    boxes = page.locator(BOX)
    return ("selectbox", boxes.first) if boxes.count() else (None, None)


def move_once(page, kind: str, widget, forward: bool) -> None:
    if kind == "slider":
        widget.focus()
        page.keyboard.press("ArrowRight" if forward else "ArrowLeft")
    else:
        widget.click()
        page.keyboard.press("ArrowDown" if forward else "ArrowUp")
        page.keyboard.press("Enter")


def time_moves(page, path: str, pid: int, moves: int) -> tuple[str, list[Move]]:
    kind, widget = main_widget(page, path)
    if kind is None:
        return "-", []
    if not widget.is_visible():  # on another tab, or folded: shown as a person would
        widget.evaluate(UNFOLD)
        widget.wait_for(state="visible", timeout=10_000)
    out = []
    at_end = kind == "slider" and widget.get_attribute("value") == widget.get_attribute("max")
    for i in range(moves):
        page.evaluate(RESET)
        cpu = cpu_seconds(pid)
        move_once(page, kind, widget, forward=(i % 2 == 0) != at_end)
        rec = wait_calm(page)
        if not rec["sent"] or not rec["input"]:
            continue  # the move changed nothing (a slider at its end): not a rerun
        out.append(move_of(rec, (cpu_seconds(pid) - cpu) * 1000))
    return kind, out


# the live views (issue 26), by page: the line printed, the view's root class, the focusable
# handle that arrow keys move, and the part whose text changes with every move
LIVE_VIEWS = {
    "soft-select": ("soft-select (live)", ".lsv", "[data-testid='liveSelectHandle']", ".lsv-bars"),
    "self-attention": ("self-attention (live)", ".lar", ".lar-picker", ".lar-table"),
}
LIVE_PROBE = """([view, changing]) => {
  const host = [...document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')]
    .find((el) => el.shadowRoot && el.shadowRoot.querySelector(view));
  const root = host.shadowRoot, live = window.__live = {input: 0, text: 0, frame: 0};
  root.addEventListener('keydown', (e) => { live.input = e.timeStamp; live.text = 0; }, true);
  new MutationObserver(() => {
    if (live.text) return;
    live.text = performance.now();
    requestAnimationFrame(() => { live.frame = performance.now(); });
  }).observe(root.querySelector(changing), {subtree: true, characterData: true, childList: true});
}"""


def live_moves(page, path: str, pid: int, moves: int) -> tuple[list[Move], int]:
    """The page's live view (LIVE_VIEWS, issue 26), `moves` arrow keys (right, left, ...) on its
    handle 100 ms apart (no sync rerun between them): per key, total = the key's input event →
    the view's numbers changed, render = that → the next frame; send and server are 0 (no round
    trip), cpu ms the server's per key. Also how many messages the page sent to the server."""
    _, view, handle, changing = LIVE_VIEWS[path]
    page.locator(handle).focus()
    page.evaluate(LIVE_PROBE, [view, changing])
    page.evaluate(RESET)
    cpu, timed = cpu_seconds(pid), []
    for i in range(moves):
        page.evaluate("window.__live.frame = 0")
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        page.wait_for_function("window.__live.frame > 0", polling=10, timeout=5000)
        live = page.evaluate("window.__live")
        timed.append((live["text"] - live["input"], live["frame"] - live["text"]))
        page.wait_for_timeout(100)
    sent = len(page.evaluate(READ)["sent"])
    cpu_ms = (cpu_seconds(pid) - cpu) * 1000 / max(moves, 1)
    return [Move(0.0, 0.0, render, total, 0, cpu_ms) for total, render in timed], sent


def warmed_up(pid: int, timeout: float = 120) -> float:
    """Seconds until the server's background warm-up (attnviz/ui/warm_up.py: the models and the
    real-model pages' defaults) is over: its CPU under 5 % for a second. Measured before it, a
    page's first visit and its moves' CPU counted the warm-up's work (750 ms a move)."""
    start = time.perf_counter()
    time.sleep(DELAY_S + 0.5)  # it starts that long after the first page
    while time.perf_counter() - start < timeout:
        before = cpu_seconds(pid)
        time.sleep(1.0)
        if cpu_seconds(pid) - before < 0.05:
            break
    return time.perf_counter() - start


def cold_start(browser) -> tuple[AppServer, float, float, float]:
    """The server, and seconds from its start to healthy, to the home page interactive (its last
    message, DOM change or long task, by the page's own clock), and of the home page's first
    visit. The tab is open before the server starts, as a person's browser is."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.add_init_script(PROBE)
    t0 = time.perf_counter()
    server = start(every_chart=False)  # as a person's server: charts drawn near the screen
    healthy = time.perf_counter() - t0
    asked = time.perf_counter() - t0
    page.goto(server.url)
    page.wait_for_selector(IDLE, timeout=90_000)
    rec = wait_calm(page, timeout=90)
    done = max([*rec["recv"], rec["mut"], rec["longEnd"]]) / 1000  # since the navigation began
    page.close()
    return server, healthy, asked + done, done


def first_visit(browser, url: str, path: str, query: str = "") -> tuple[float, object]:
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.add_init_script(PROBE)
    t0 = time.perf_counter()
    page.goto(f"{url}/{page_url(path)}{query}")
    page.wait_for_selector("[data-testid='stMain']", timeout=90_000)
    wait_calm(page, timeout=120)
    return time.perf_counter() - t0 - CALM_MS / 1000, page


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank), NaN for no values."""
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)] if ordered else float("nan")


def report(path: str, first: float, kind: str, moves: list[Move]) -> None:
    m = {f: median([getattr(x, f) for x in moves]) for f in Move.__dataclass_fields__}
    print(
        f"{path:<22} {first:7.2f} {kind:>9} {len(moves):3d} {m['total']:7.0f} {m['send']:6.0f} "
        f"{m['server']:7.0f} {m['render']:7.0f} {m['bytes'] / 1000:8.1f} {m['cpu_ms']:7.0f} "
        f"{p95([x.total for x in moves]):7.0f}",
        flush=True,
    )


def students(server: AppServer, n: int) -> subprocess.Popen | None:
    """N simulated students on `server` for as long as the benchmark runs (None for none)."""
    if not n:
        return None
    cmd = [sys.executable, "-m", "benchmarks.load", "--url", server.url, "--pid", str(server.pid)]
    cmd += ["--students", str(n), "--duration", "3600", "--warm", "1"]
    load = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(10)  # they open their pages and start moving
    return load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--page", nargs="*", help="url paths (default: every page)")
    parser.add_argument("--students", type=int, default=0, help="simulated students beside")
    parser.add_argument("--query", default="", help="after each page's url, e.g. ?lecture=true")
    args = parser.parse_args()
    paths = args.page or [p.url for p in all_pages()]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        server, healthy, home, home_visit = cold_start(browser)
        load = None
        try:
            wait_healthy(server)
            print(f"cold start: healthy after {healthy:.2f} s, home interactive after {home:.2f} s")
            print(f"warm-up done after {warmed_up(server.pid):.1f} s more (the server quiet)")
            print(machine_now(browser), "(before the pages)")
            load = students(server, args.students)
            if load is not None:
                print(f"with {args.students} simulated students on the same server")
            print(
                f"{'page':<22} {'first s':>7} {'widget':>9} {'n':>3} {'idle ms':>7} {'send':>6} "
                f"{'server':>7} {'render':>7} {'kB/move':>8} {'cpu ms':>7} {'p95 ms':>7}"
            )
            for path in paths:
                first, page = first_visit(browser, server.url, path, args.query)
                kind, moves = time_moves(page, path, server.pid, args.moves)
                report(path, first, kind, moves)
                if path in LIVE_VIEWS:  # the live view: no server round trip (issue 26)
                    live, sent = live_moves(page, path, server.pid, args.moves)
                    report(LIVE_VIEWS[path][0], float("nan"), "live", live)
                    print(f"{'':<22} (live: {sent} messages to the server during its moves)")
                page.close()
            if "pretrained" in paths:
                short = [SHORT_TEXT.replace("dry", word) for word in ("dry", "soft", "old")]
                for tokens, texts in ((512, [LONG_TEXT]), (64, short[:SHORT_RUNS])):
                    moves = [long_input(browser, server.url, server.pid, text) for text in texts]
                    report(f"pretrained, {tokens} tokens", float("nan"), "text", moves)
                    floor, total = model_floor(texts[0]), median([m.total for m in moves])
                    print(
                        f"{'':<22} (the model alone: {floor:.0f} ms for its forward pass with "
                        f"attentions; the page takes {total / floor:.1f}× that)"
                    )
            if "language-model" in paths:  # a new prompt: ≤ 1 s to idle (issue 55)
                texts = [SHORT_TEXT.replace("dry", word) for word in ("warm", "wet", "cold")]
                moves = [
                    long_input(browser, server.url, server.pid, t, "language-model") for t in texts
                ]
                report("language-model, prompt", float("nan"), "text", moves)
            print(machine_now(browser), "(after them)")
        finally:
            if load is not None:
                load.terminate()
                load.wait(timeout=30)
            stop(server)
            browser.close()


if __name__ == "__main__":
    main()
