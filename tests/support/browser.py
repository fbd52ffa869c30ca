"""Browser helpers (Playwright with Debian's Chromium) shared by the browser tests and benchmarks:
how to launch Chromium, open a page of the app, wait for a rerun to finish, check for exceptions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

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


IDLE_PROBE = """(() => {
  if (window.__idleProbe) return;  // once per document, however often it was added
  window.__idleProbe = true;
  const now = () => performance.now();
  Object.assign(window, {__sockets: 0, __lastSend: null, __lastRecv: null, __lastInput: null,
    __lastMutation: null, __pending: 0, __calmSince: null});
  const Native = window.WebSocket;
  const send = Native.prototype.send;
  Native.prototype.send = function (...args) {
    window.__lastSend = now();
    return send.apply(this, args);
  };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sockets += 1;
      this.addEventListener('message', () => { window.__lastRecv = now(); });
    }
  };
  const seen = () => { window.__lastInput = now(); };
  for (const type of ['keydown', 'keyup', 'pointerdown', 'pointerup', 'click', 'input', 'change'])
    window.addEventListener(type, seen, true);
  const done = () => { window.__pending -= 1; };
  const nativeFetch = window.fetch;
  window.fetch = function (...args) {
    window.__pending += 1;
    return nativeFetch.apply(this, args).finally(done);
  };
  const xhrSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    window.__pending += 1;
    this.addEventListener('loadend', done, {once: true});
    return xhrSend.apply(this, args);
  };
  const watch = () => new MutationObserver(() => { window.__lastMutation = now(); })
    .observe(document.documentElement, {subtree: true, childList: true, attributes: true,
      characterData: true});
  if (document.documentElement) watch(); else addEventListener('DOMContentLoaded', watch);
})();"""
IDLE_CHECK = """([idle, calm, quiet, settle, answer, redraw]) => {
  const t = performance.now();
  const ready = document.querySelector(idle)
    && !document.querySelector("[data-testid='stSkeleton']");
  if (!ready) { window.__calmSince = null; return false; }
  if (window.__calmSince == null) window.__calmSince = t;
  if (!window.__sockets) return t - window.__calmSince >= calm;  // no socket seen: the old rule
  const [send, recv, input] = [window.__lastSend, window.__lastRecv, window.__lastInput];
  if (recv == null || window.__pending > 0) return false;
  if (send != null && recv < send && t - send < answer) return false;  // not answered yet
  if (input != null && (send == null || send < input) && t - input < settle) return false;
  if (t - recv < quiet) return false;
  const drawn = window.__lastMutation;  // Plotly and React draw after the last message
  return drawn == null || t - drawn >= quiet || t - recv >= redraw;
}"""
QUIET_MS = 450  # the old rule, kept for a page whose websocket the probe did not see
ANSWER_QUIET_MS = 120  # no message and no DOM change for this long after the last answer
SETTLE_MS = 150  # an input event's rerun request goes out within this (Streamlit: same task)
ANSWER_MS = 5_000  # a request still unanswered after this was one that expects no answer
REDRAW_CAP_MS = 500  # Plotly may draw for 2 s after a page's first run: wait no longer than
# the old rule did (QUIET_MS after the last message); `wait_drawn` waits for the whole drawing


def instrument(page) -> None:
    """Add IDLE_PROBE to `page` (it runs in each document the page loads from now on): it
    records the times of the last websocket message sent and received, of the last input event
    and DOM change, and the HTTP requests in flight, for `wait_idle`. Idempotent."""
    if not page.evaluate("!!window.__idleProbe"):
        page.add_init_script(IDLE_PROBE)


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until a rerun has finished. On a page with IDLE_PROBE (`instrument`) whose
    websocket it saw: the app reports notRunning with no placeholder skeleton, no HTTP request
    is in flight, every rerun request sent has been answered (a message received after the last
    send, or ANSWER_MS passed), an input event not followed by a send is SETTLE_MS old (it would
    have sent its rerun by then), and the last message and the last DOM change (Plotly draws
    after the last delta) are ANSWER_QUIET_MS old (DOM changes count until REDRAW_CAP_MS after
    the last message: never longer than the old rule waited).
    Otherwise the old rule: notRunning with no skeleton for QUIET_MS without a break, so that a
    just-triggered rerun has had time to start. Polled every 25 ms in the page."""
    page.evaluate("window.__calmSince = null")
    arg = [IDLE, QUIET_MS, ANSWER_QUIET_MS, SETTLE_MS, ANSWER_MS, REDRAW_CAP_MS]
    try:
        page.wait_for_function(IDLE_CHECK, arg=arg, polling=25, timeout=timeout)
    except Exception as err:  # playwright's TimeoutError: say it in the tests' words
        if "Timeout" not in type(err).__name__:
            raise
        raise TimeoutError("the app kept running") from err


DRAWN = """(quiet) => {
  const t = performance.now();
  if (document.fonts && document.fonts.status !== 'loaded') return false;
  if (![...document.images].every((img) => img.complete)) return false;
  if (![...document.querySelectorAll('.js-plotly-plot')].every((el) => el._fullLayout)) {
    return false;
  }
  const drawn = window.__lastMutation;
  return drawn == null || t - drawn >= quiet;
}"""


def wait_drawn(page, timeout: float = 10_000) -> None:
    """After `wait_idle`, for checks of what is drawn: web fonts and images have loaded, every
    Plotly figure has been laid out, and the DOM has not changed for ANSWER_QUIET_MS (until
    `timeout` ms, a page that never calms down fails)."""
    page.wait_for_function(DRAWN, arg=ANSWER_QUIET_MS, polling=25, timeout=timeout)


def open_app_page(page, app_url: str, url_path: str, query: str = "") -> None:
    """Go to a page of the app (`query` like "?ks_n=200") and wait until it has run."""
    instrument(page)
    page.goto(f"{app_url}/{page_url(url_path)}{query}")
    page.wait_for_selector("[data-testid='stMain']", timeout=60_000)
    wait_idle(page)


PICK_PAGE = """(path) => {  // as a sidebar link does: the address changes, the app reruns
  window.__pickedAt = performance.now();
  history.pushState({}, '', path);
  dispatchEvent(new PopStateEvent('popstate', {state: {}}));
}"""
PICK_SENT = "() => window.__lastSend != null && window.__lastSend >= window.__pickedAt"
TITLED = "() => !!document.querySelector(\"[data-testid='stMain'] h1\")"  # every page has one


def pick_page(page, url_path: str, query: str = "") -> None:
    """Go to another page of the app in the same session, as the sidebar's links do (no new
    document: the app's scripts stay loaded, its settings kept), and wait until it has run.
    `page` must have been opened with `open_app_page`."""
    page.evaluate(PICK_PAGE, f"/{page_url(url_path)}{query}")
    page.wait_for_function(PICK_SENT, polling=25, timeout=10_000)  # the rerun was asked for
    wait_idle(page)
    if not page.evaluate(TITLED):  # a loaded server answered the switch (the old page cleared)
        page.wait_for_function(TITLED, polling=25, timeout=30_000)  # but ran the new one later:
        wait_idle(page)  # seen once, the lessons page read empty on the phone


def warm_up(browser, url: str) -> None:
    """Run the app once so the navigation is known: a deep link into a server that has never
    run app.py shows Streamlit's "Page not found" dialog (a first-start race)."""
    page = browser.new_page()
    instrument(page)
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
    name: t.name, x: t.x ? Array.from(t.x) : null, y: t.y ? Array.from(t.y) : null}));
}"""


def plotly_traces(page, title_start: str) -> list[dict] | None:
    """x and y of every trace of the last drawn Plotly figure whose title (Streamlit's theme
    wraps it in <b>; tags are dropped) starts with `title_start`; None if there is none."""
    return page.evaluate(PLOTLY_DATA, title_start)


LECTURE_VIEWPORTS = ({"width": 1280, "height": 720}, {"width": 1920, "height": 1080})

LAYOUT_PROBE = """() => {
  const vis = (el) => { const r = el.getBoundingClientRect();  // not in a closed expander
    return r.width > 0 && r.height > 0 && el.checkVisibility({visibilityProperty: true}); };
  const txt = (el) => (el.innerText || el.textContent || '').trim().replace(/\\s+/g, ' ')
    .slice(0, 80);
  const kinds = {
    button: 'button, button [data-testid="stMarkdownContainer"], button p',
    heading: 'h1, h2, h3, h4, [data-testid="stHeading"]',
    tab: '[role="tab"], [role="tab"] p',
    metric: '[data-testid="stMetricValue"], [data-testid="stMetricValue"] div,'
      + ' [data-testid="stMetricLabel"] p',
    expander: 'summary, summary p',
  };
  const overflow = [];
  for (const [kind, sel] of Object.entries(kinds)) {
    for (const el of document.querySelectorAll(sel)) {
      if (!vis(el) || el.clientWidth === 0) continue;
      if (el.scrollWidth > el.clientWidth + 1)
        overflow.push({kind, text: txt(el), scroll: el.scrollWidth, client: el.clientWidth});
    }
  }
  const plots = [...document.querySelectorAll('.js-plotly-plot')].filter(vis);
  const figures = plots.map((el) => {
    const r = el.getBoundingClientRect();
    const title = el.querySelector('.gtitle');
    const t = title ? title.getBoundingClientRect() : null;
    return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right,
      title: title ? title.textContent : '',
      titleLeft: t ? t.left : null, titleRight: t ? t.right : null};
  });
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const blocks = main ? [...main.querySelectorAll(
    ':scope > div > [data-testid="stElementContainer"],'
    + ':scope > div > [data-testid="stLayoutWrapper"], :scope > div > [data-testid]')] : [];
  const above = blocks.filter(vis).map((el) => ({
    what: (el.getAttribute('data-testid') || '') + ': ' + txt(el).slice(0, 50),
    top: Math.round(el.getBoundingClientRect().top + scrollY),
    height: Math.round(el.getBoundingClientRect().height)}));
  const side = document.querySelector('[data-testid="stSidebar"]');
  const metricFonts = [...document.querySelectorAll('[data-testid="stMetricValue"] *')]
    .filter((el) => vis(el) && !el.children.length)
    .map((el) => parseFloat(getComputedStyle(el).fontSize));
  const slider = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stSlider"]')]
    .find(vis);
  const lines = (el) => new Set([...el.getClientRects()].map((r) => Math.round(r.top))).size;
  const brokenFormulas = [...document.querySelectorAll('.katex')]  // an inline one on 2 lines
    .filter((el) => vis(el) && !el.closest('.katex-display') && lines(el) > 1).map(txt);
  const title = document.querySelector('[data-testid="stMain"] h1');
  const titleTop = title ? Math.round(title.getBoundingClientRect().top + scrollY) : null;
  const navCut = [...document.querySelectorAll('[data-testid="stSidebarNavLink"] span')]
    .filter((el) => vis(el) && el.scrollWidth > el.clientWidth + 1).map(txt);
  const toolbars = [...document.querySelectorAll('.js-plotly-plot .modebar-container')]
    .filter((el) => getComputedStyle(el).display !== 'none').length;
  const exit = document.querySelector('.st-key-lecture_exit button');
  const row = document.querySelector('.st-key-lecture_title_row');
  const parts = row ? [...row.querySelectorAll('h1, button')].filter(vis) : [];
  const box = (el) => { const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, text: txt(el)}; };
  const titleRow = parts.map(box);
  return {overflow, figures, blocks: above, viewport: innerHeight, metricFonts, brokenFormulas,
    titleTop, toolbars, navCut, titleRow, exit: exit && vis(exit) ? box(exit) : null,
    sidebar: side ? side.getAttribute('data-collapsed') : null,
    firstSlider: slider ? slider.getBoundingClientRect().top + scrollY : null};
}"""


def layout_probe(page) -> dict:
    """What the lecture-mode tests check, read in one go from the page (scrolled to the top):
    `overflow` (elements whose text is wider than their box: buttons, headings, tabs, metrics,
    expander labels), `figures` (each visible Plotly figure's box in page coordinates and its
    title's left/right), `blocks` (the main area's top-level blocks, for saying what is above the
    first figure), `metricFonts` (px of each metric value's text), `viewport` (height),
    `sidebar` (the sidebar's data-collapsed: "true" when folded), `firstSlider` (the top of
    the main area's first slider in page coordinates; None without one) and `brokenFormulas`
    (the text of each inline formula that a line break cuts in two), `titleTop` (the page
    title's top in page coordinates; None without one), `toolbars` (Plotly toolbars that can
    show: not display:none), `navCut` (the sidebar's page names that do not fit their line),
    `titleRow` (the boxes and texts of the title's line: the title, its buttons) and `exit` (the
    box of "Exit lecture mode"; None outside lecture mode)."""
    page.evaluate("window.scrollTo(0, 0)")
    return page.evaluate(LAYOUT_PROBE)


def boxes_overlap(a: dict, b: dict, slack: float = 1.0) -> bool:
    """Whether two {top, bottom, left, right} boxes share more than `slack` pixels both ways."""
    wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
    tall = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return wide > slack and tall > slack


def record_requests(page) -> tuple[list[str], Callable]:
    """Start recording the URL of every request the page makes: (a list that keeps growing, the
    listener, for `page.remove_listener("request", listener)`)."""
    seen: list[str] = []

    def heard(request) -> None:
        seen.append(request.url)

    page.on("request", heard)
    return seen, heard


LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def foreign(urls: list[str]) -> list[str]:
    """The URLs that are neither in-page (data:, blob:) nor to a local host."""
    return [
        u
        for u in urls
        if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).hostname not in LOCAL_HOSTS
    ]


UPLOADER = "[data-testid='stFileUploaderDropzoneInput']"
UPLOADED = "[data-testid='stFileChipName']"


def upload(page, path: Path, then) -> None:
    """Give the page's file uploader `path` and wait for the Locator `then` (what the page shows
    for it). Under load a file set while a rerun replaces the uploader can be dropped (its
    name never appears in the uploader's list): the file is set once more then."""
    for attempt in range(2):
        page.locator(UPLOADER).set_input_files(str(path))
        try:
            page.locator(UPLOADED, has_text=path.name).wait_for(timeout=15_000)
            break
        except Exception:  # playwright's TimeoutError
            if attempt:
                raise
            wait_idle(page)
    then.wait_for(timeout=60_000)
