// Presenter mode's stage (attnviz/ui/lecture/stage.py). A lesson step names the views it shows;
// the page draws each in a container keyed `view_<name>` (attnviz/ui/common/here.py). The stage
// keeps the lesson's bar, those views and a training page's buttons, hides everything else of
// the page (its settings, other figures, status lines), widens the views to the full width and
// scales them to fill the screen under the bar: drawn smaller when taller than the room left,
// larger when short, never cut. Views the step's question hides until Reveal are veiled: the
// room they take shows the question instead. Runs in the app's page (components v2); reads its
// data as text only, never as HTML.
const OFF = "data-stage-off";
const ON = "data-stage-on";
const WIDE = "data-stage-wide";
const VEIL = "data-stage-veil";
const ASKED = "data-stage-asked"; // a widget the step asks the presenter to move (hide_controls.css)
const GAP = 10; // px between the bar, the views and the screen's bottom
// px more that fit() keeps free: a chart that keeps its aspect redraws itself after a zoom (its
// width in CSS px changes) and may grow by a few px before the next tick measures it again
const SLACK = 16;
const GRID = "data-stage-grid";
const CELL = "data-stage-cell";
const SIDE_BY_SIDE_MIN = 760; // px of width under which two views stack instead (beside the lesson's text at 1280, 810)
// at most this many views side by side (three small matrices, L1 s10's Q, K and V: stacked at
// 1280×720 each plot was 57 px tall)
const MAX_ACROSS = 3;
const MAX_ZOOM = 1.6;
const TICK_MS = 200;
const KEEP = [
  ".st-key-presenter_bar", // the lesson's bar: controls, narration, question
  '[class*="st-key-lesson_"]',
].join(", "); // (a run's timeline slider is one of the page's controls: it would take the views' room)
const BLOCKS = '[data-testid="stElementContainer"], [data-testid="stLayoutWrapper"]';

// The width the views may take: the main area's, less its padding (beside the lesson's text on
// a wide, short screen, stage.css pads the main area by that column's width).
function across(main, win) {
  if (!main) return win.innerWidth;
  const cs = win.getComputedStyle(main);
  return main.clientWidth - parseFloat(cs.paddingLeft || "0") - parseFloat(cs.paddingRight || "0");
}

function targets(doc, names) {
  return names.map((name) => doc.querySelector(`.st-key-view_${CSS.escape(name)}`)).filter(Boolean);
}

// Hide every block of the main area that holds none of the views or keepers and is inside none
// of them; widen the columns that hold a view.
function isolate(main, shown) {
  const holds = (el) => shown.some((s) => el === s || el.contains(s) || s.contains(el));
  for (const block of main.querySelectorAll(BLOCKS)) {
    const inside = block.parentElement && block.parentElement.closest(`[${ON}]`);
    const keep = holds(block) || inside;
    if (keep) block.removeAttribute(OFF);
    else if (!block.hasAttribute(OFF)) block.setAttribute(OFF, "");
  }
  for (const s of shown) s.setAttribute(ON, "");
  for (const col of main.querySelectorAll('[data-testid="stColumn"]')) {
    const holding = shown.some((s) => col.contains(s));
    if (holding) col.setAttribute(WIDE, "");
    else col.removeAttribute(WIDE);
    // a column that holds nothing shown goes too: left empty beside a widened one, it pushed
    // that one to a line of its own, a column gap (42 px) above the views
    const inside = col.parentElement && col.parentElement.closest(`[${ON}]`);
    if (holding || inside) col.removeAttribute(OFF);
    else if (!col.hasAttribute(OFF)) col.setAttribute(OFF, "");
  }
}

// Two or three views side by side where the screen is wide: their lowest common ancestor becomes
// a grid of that many columns, what else it shows (a training page's buttons) spanning them all.
// Returns the number of rows the views take.
function arrange(views, doc) {
  for (const el of doc.querySelectorAll(`[${GRID}]`)) el.removeAttribute(GRID);
  for (const el of doc.querySelectorAll(`[${CELL}]`)) el.removeAttribute(CELL);
  const main = doc.querySelector('[data-testid="stMainBlockContainer"]');
  const wide = main && across(main, doc.defaultView) >= SIDE_BY_SIDE_MIN;
  if (views.length < 2 || views.length > MAX_ACROSS || !wide) return views.length;
  let common = views[0].parentElement;
  while (common && !views.every((v) => common.contains(v))) common = common.parentElement;
  if (!common) return views.length;
  common.setAttribute(GRID, "");
  common.style.setProperty("--stage-columns", String(views.length));
  let seen = false; // what comes before the views stays above them, the rest goes below both
  for (const child of common.children) {
    const cell = views.some((v) => child.contains(v));
    if (cell) child.setAttribute(CELL, "");
    seen = seen || cell;
    child.style.order = cell ? "0" : seen ? "1" : "-1";
  }
  return 1;
}

// One zoom for every view: what fills the room between the top of the first and the screen's
// bottom (and the main area's width), at most MAX_ZOOM; measured again after zooming, since
// what lies between the views (a section's padding) does not shrink with them.
function fit(views, doc, other) {
  const win = doc.defaultView;
  const main = doc.querySelector('[data-testid="stMainBlockContainer"]');
  const wide = across(main, win);
  const box = () => {
    const rects = views.map((v) => v.getBoundingClientRect());
    const top = Math.min(...rects.map((r) => r.top));
    return { top, bottom: Math.max(...rects.map((r) => r.bottom)), width: Math.max(...rects.map((r) => r.width)) };
  };
  const set = (zoom) => {
    for (const v of views) {
      v.style.zoom = String(zoom);
      v.style.setProperty("--stage-zoom", String(zoom));
    }
  };
  set(1);
  let { top, bottom, width } = box();
  const room = () => win.innerHeight - GAP - SLACK - Math.max(top, 0) - other;
  let zoom = Math.min(MAX_ZOOM, room() / Math.max(bottom - top, 1), wide / Math.max(width, 1));
  for (let i = 0; i < 4; i += 1) {
    set(Math.max(zoom, 0.2));
    ({ top, bottom } = box());
    const over = bottom - (win.innerHeight - GAP - SLACK - other);
    if (over <= 1) break;
    zoom *= Math.max(0.5, 1 - over / Math.max(bottom - top, 1));
  }
  return zoom;
}

// A training page's Start, Pause / Resume, Step and Stop (its Reset and the page's own Reset
// stay with the page's controls), and a live measurement's Measure.
function runButtons(main) {
  const run = /\bst-key-[A-Za-z]+_(start|pause|resume|step|stop|measure|replay|status)\b/;
  return [...main.querySelectorAll('[class*="st-key-"]')].filter((el) => run.test(el.className));
}

// Tell the server the room the views have (px, rounded to ROUND): it draws each Plotly view at
// its share of that height, so a view is redrawn to fit rather than shrunk. A change reruns.
const ROUND = 20;
// px: a room lower than this holds no view (a plot area needs 200 px); it is measured while the
// page is still being laid out (a step opened by its link: the view at 676 px of 720 for a
// moment, whose 60 px room the server then drew a 10 px plot to, shown for a second)
const LEAST_ROOM = 160;
// The room is what the views themselves may take: the height under the first view's top, less
// what does not shrink when the views are drawn smaller: side by side, a view that starts lower
// (under a section's header); stacked, the gaps between the views; and what else the stage shows
// below them (a run's timeline, a summary line). None of it depends on the views' own heights,
// which change while the server redraws them: measured mid-redraw, a room that did would move
// again, and the stage and the server would chase each other.
function report(component, views, doc, rows, kept) {
  const win = doc.defaultView;
  for (const v of views) v.style.zoom = "1";
  const boxes = views.map((v) => v.getBoundingClientRect());
  const top = Math.min(...boxes.map((b) => b.top));
  const bottom = Math.max(...boxes.map((b) => b.bottom));
  const within = rows === 1
    ? Math.max(...boxes.map((b) => b.top)) - top
    : bottom - top - boxes.reduce((a, b) => a + b.height, 0);
  const kepts = kept.map((el) => el.getBoundingClientRect()).filter((b) => b.height && b.top >= bottom - 1);
  const under = kepts.length ? Math.max(0, Math.max(...kepts.map((b) => b.bottom)) - bottom) : 0;
  const other = Math.max(0, within) + under;
  const main = doc.querySelector('[data-testid="stMainBlockContainer"]');
  const room = [win.innerHeight - GAP - Math.max(top, 0) - other, across(main, win)];
  if (room[0] < LEAST_ROOM) return [under, null]; // the page is still being laid out
  const sent = [...room.map((px) => Math.max(ROUND, Math.floor(px / ROUND) * ROUND)), rows];
  const key = sent.join("x");
  if (win.__attnvizStageRoom !== key) {
    win.__attnvizStageRoom = key;
    component.setStateValue("room", sent);
  }
  return [under, key];
}

function veil(views, names, hidden, text) {
  views.forEach((v, i) => {
    if (hidden.includes(names[i])) v.setAttribute(VEIL, text);
    else v.removeAttribute(VEIL);
  });
}

// A new step is lecture mode's first screen: the sidebar (open on the Lessons page when Present
// was pressed) is folded, once per step, so the presenter can still open it by hand.
function foldSidebar(doc, step) {
  const win = doc.defaultView;
  if (win.__attnvizFoldedStep === step) return;
  win.__attnvizFoldedStep = step;
  const open = doc.querySelector('[data-testid="stSidebar"][data-collapsed="false"]');
  const button = open && open.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (button) button.click();
}

function clear(doc) {
  for (const el of doc.querySelectorAll(`[${OFF}]`)) el.removeAttribute(OFF);
  for (const el of doc.querySelectorAll(`[${WIDE}]`)) el.removeAttribute(WIDE);
  for (const el of doc.querySelectorAll(`[${VEIL}]`)) el.removeAttribute(VEIL);
  for (const el of doc.querySelectorAll(`[${ASKED}]`)) el.removeAttribute(ASKED);
  for (const el of doc.querySelectorAll(`[${GRID}]`)) el.removeAttribute(GRID);
  for (const el of doc.querySelectorAll(`[${CELL}]`)) el.removeAttribute(CELL);
  for (const el of doc.querySelectorAll(`[${ON}]`)) {
    el.removeAttribute(ON);
    el.style.zoom = "";
  }
}

export default function (component) {
  const { data, parentElement } = component;
  const doc = parentElement.ownerDocument || document;
  const win = doc.defaultView;
  if (data && data.step) foldSidebar(doc, data.step);
  if (win.__attnvizStage) win.__attnvizStage(); // the previous step's stage
  const names = (data && data.views) || [];
  const hidden = (data && data.hidden) || [];
  const stage = () => {
    const main = doc.querySelector('[data-testid="stMainBlockContainer"]');
    if (!main || !data.on) return;
    const views = targets(doc, names); // a run's views (curves) are drawn once it starts
    // Start and the run's controls, or Measure (a live timing is no run: kept on any step)
    const buttons = runButtons(main).filter((el) => data.run !== false || /_measure\b/.test(el.className));
    if (!views.length && !buttons.length) return; // the page is still being drawn
    const controls = ((data && data.controls) || []).map((key) => `.st-key-${CSS.escape(key)}`);
    const asked = controls.length ? [...main.querySelectorAll(controls.join(", "))] : [];
    for (const el of doc.querySelectorAll(`[${ASKED}]`)) if (!asked.includes(el)) el.removeAttribute(ASKED);
    for (const el of asked) el.setAttribute(ASKED, "");
    const kept = [...main.querySelectorAll(KEEP), ...buttons, ...asked];
    isolate(main, [...views, ...kept]);
    veil(views, names, hidden, data.question || "");
    if (views.length) {
      const rows = arrange(views, doc);
      const below = kept.filter((el) => !el.closest(".st-key-presenter_bar"));
      const [under, key] = report(component, views, doc, rows, below);
      fit(views, doc, under); // what lies between the views is inside their box already
      // settled: the views are drawn for the room measured now, on this screen (a test waits)
      const marker = key && doc.querySelector(`.st-key-stage_drawn_${key}`);
      if (marker) {
        doc.documentElement.setAttribute("data-stage-settled", data.step || "");
        doc.documentElement.setAttribute("data-stage-screen", `${win.innerWidth}x${win.innerHeight}`);
      } else doc.documentElement.removeAttribute("data-stage-settled");
    }
    doc.documentElement.setAttribute("data-stage", "ready");
    doc.documentElement.setAttribute("data-stage-step", data.step || "");
  };
  stage();
  const timer = win.setInterval(stage, TICK_MS);
  const resize = () => stage();
  win.addEventListener("resize", resize);
  const cleanup = () => {
    win.clearInterval(timer);
    win.removeEventListener("resize", resize);
    doc.documentElement.removeAttribute("data-stage");
    doc.documentElement.removeAttribute("data-stage-step");
    doc.documentElement.removeAttribute("data-stage-settled");
    doc.documentElement.removeAttribute("data-stage-screen");
    clear(doc);
    if (win.__attnvizStage === cleanup) delete win.__attnvizStage;
  };
  win.__attnvizStage = cleanup;
  return cleanup;
}
