// Presenter mode (attnviz/ui/lecture/focus.py): find the step's figure on the page, scroll it just
// below the lesson's bar and mark it. A figure is named by text from its Plotly title, a heading,
// a section's (expander's) label or a paragraph that starts in bold: the first visible one whose
// text starts with it, else the first that contains it; case and spaces are ignored, so a title
// the app wraps onto several lines still matches. Runs in the app's page (components v2); reads
// `data.figure` as text only, never as HTML.
const MARK = "data-lesson-figure";
const CANDIDATES = [
  '[data-testid="stPlotlyChart"]',
  '[data-testid="stHeading"]',
  '[data-testid="stMarkdownContainer"] :is(h1, h2, h3, h4, h5, h6)',
  '[data-testid="stExpander"] summary',
  '[data-testid="stMarkdownContainer"] > p:has(> strong:first-child)',
].join(", ");
const GAP = 12; // px between the bar and the figure: its mark (5 px, 3 px off) shows whole
const SETTLE_MS = 1500; // aligned this long: stop following (the presenter's own scroll wins)
const TICK_MS = 200;

const squash = (text) => (text || "").toLowerCase().replace(/\s+/g, "");

function label(el) {
  if (el.matches('[data-testid="stPlotlyChart"]')) {
    const title = el.querySelector(".gtitle");
    return title ? title.textContent : "";
  }
  return el.textContent;
}

function visible(main) {
  return [...main.querySelectorAll(CANDIDATES)].filter(
    (el) => !el.closest(".st-key-presenter_bar") && el.getClientRects().length,
  );
}

function find(doc, wanted) {
  const main = doc.querySelector('[data-testid="stMain"]');
  if (!main || !wanted) return null;
  const shown = visible(main).map((el) => [el, squash(label(el))]);
  const hit = shown.find(([, text]) => text.startsWith(wanted))
    || shown.find(([, text]) => text.includes(wanted));
  if (!hit) return null;
  const el = hit[0];
  if (el.tagName === "SUMMARY") return el.closest('[data-testid="stExpander"]') || el;
  return el.closest('[data-testid="stElementContainer"]') || el;
}

function scroller(el, doc) {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const overflow = getComputedStyle(p).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && p.scrollHeight > p.clientHeight) return p;
  }
  return doc.scrollingElement;
}

// The top of what the figure draws: a Plotly title (several lines, pinned to the figure's top)
// may reach above its chart's box, and it is the first thing the class reads.
function drawnTop(target) {
  let top = target.getBoundingClientRect().top;
  for (const title of target.querySelectorAll(".gtitle")) {
    if (title.getClientRects().length) top = Math.min(top, title.getBoundingClientRect().top);
  }
  return top;
}

// Scroll as little as brings a figure whole into view below the bar (what is just above it,
// such as training's buttons, stays in sight), or its top (its title's, if higher) just below
// the bar when it is taller than that or is a heading (what it heads follows it). Returns how
// far it had to move.
function align(target, doc) {
  const bar = doc.querySelector(".st-key-presenter_bar");
  const top = (bar ? bar.getBoundingClientRect().bottom : 0) + GAP;
  const box = target.getBoundingClientRect();
  const head = drawnTop(target);
  const view = doc.defaultView.innerHeight;
  if (head >= top && box.bottom <= view) return 0;
  const figure = target.querySelector('[data-testid="stPlotlyChart"]'); // not a heading
  const fits = figure && box.bottom - head <= view - GAP - top;
  const delta = head > top && fits ? box.bottom - (view - GAP) : head - top;
  if (Math.abs(delta) > 1) scroller(target, doc).scrollTop += delta;
  return delta;
}

// Call `changed` when the bar's height changes (Reveal, a wrapped line): the figure is aligned
// again unless the presenter has scrolled. Returns the function that stops watching.
function onBarResize(doc, changed) {
  const bar = doc.querySelector(".st-key-presenter_bar");
  if (!bar || !doc.defaultView.ResizeObserver) return () => {};
  let height = bar.getBoundingClientRect().height;
  const observer = new doc.defaultView.ResizeObserver(() => {
    const now = bar.getBoundingClientRect().height;
    if (Math.abs(now - height) > 1) changed();
    height = now;
  });
  observer.observe(bar);
  return () => observer.disconnect();
}

function mark(doc, target) {
  for (const old of doc.querySelectorAll(`[${MARK}]`)) {
    if (old !== target) old.removeAttribute(MARK);
  }
  if (target && !target.hasAttribute(MARK)) target.setAttribute(MARK, "");
}

// Call `stop` when the presenter scrolls by hand (wheel, touch, keys, a scroll bar); returns the
// function that stops listening.
function onOwnScroll(doc, stop) {
  const win = doc.defaultView;
  const keys = (event) => {
    if (["PageUp", "PageDown", "Home", "End", "ArrowUp", "ArrowDown"].includes(event.key)) stop();
  };
  const grab = (event) => { // a press on a scroll bar: right of the element's content box
    const box = event.target;
    if (box instanceof win.Element && event.offsetX >= box.clientWidth && box.clientWidth) stop();
  };
  const events = [["wheel", stop], ["touchmove", stop], ["keydown", keys], ["mousedown", grab]];
  for (const [name, handler] of events) doc.addEventListener(name, handler, { passive: true });
  return () => {
    for (const [name, handler] of events) doc.removeEventListener(name, handler, { passive: true });
  };
}

// Keep the mark on the step's figure: a rerun may replace the figure's element, so the new one
// is marked as the page changes, before it is painted (no flicker). Returns [remark, stop].
function keepMarked(doc, wanted) {
  let current = null;
  const remark = () => {
    const target = find(doc, wanted);
    if (target) mark(doc, target); // else (re)drawing: the mark stays until the figure is back
    current = target || current;
    return target;
  };
  const observer = new doc.defaultView.MutationObserver(() => {
    if (!current || !current.isConnected || !current.hasAttribute(MARK)) remark();
  });
  observer.observe(doc.querySelector('[data-testid="stMain"]') || doc.body, {
    childList: true, subtree: true, attributes: true, attributeFilter: [MARK],
  });
  return [remark, () => observer.disconnect()];
}

export default function (component) {
  const { data, parentElement } = component;
  const doc = parentElement.ownerDocument || document;
  const win = doc.defaultView;
  if (win.__attnvizLessonFocus) win.__attnvizLessonFocus(); // the previous step's follower
  let following = true;
  let ownScroll = false;
  let alignedSince = null;
  const unlisten = onOwnScroll(doc, () => { following = false; ownScroll = true; });
  const unwatch = onBarResize(doc, () => {
    if (!ownScroll) { following = true; alignedSince = null; }
  });
  const [remark, unobserve] = keepMarked(doc, squash(data && data.figure));
  const tick = () => { // follow the figure while the page lays out, until it has settled
    const target = remark();
    if (!target || !following) return;
    const now = performance.now();
    if (Math.abs(align(target, doc)) > 1) alignedSince = null;
    else if (alignedSince === null) alignedSince = now;
    else if (now - alignedSince > SETTLE_MS) following = false;
  };
  tick();
  const timer = win.setInterval(tick, TICK_MS);
  const cleanup = () => {
    win.clearInterval(timer);
    unobserve();
    unlisten();
    unwatch();
    mark(doc, null);
    if (win.__attnvizLessonFocus === cleanup) delete win.__attnvizLessonFocus;
  };
  win.__attnvizLessonFocus = cleanup;
  return cleanup;
}
