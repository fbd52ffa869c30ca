// Presenter mode's stage (attnviz/ui/lecture/stage.py). The server lays the stage out: it draws
// the step's views in places of their own (side by side where the room is wide) and hides the
// rest of the page with a sheet (attnviz/ui/lecture/stage.py). This script measures and
// veils: it reports the room under the lesson's bar the views have (the server draws them to
// it), marks the page settled once what is drawn is what it measured, scales the views to fill
// the screen (drawn smaller when taller than the room left, larger when short, never cut), and
// veils the views the step's question hides until Reveal (the room they take shows the
// question). Runs in the app's page (components v2); reads its data as text only, never HTML.
const ON = "data-stage-on";
const VEIL = "data-stage-veil";
const GAP = 10; // px between the bar, the views and the screen's bottom
// px more that fit() keeps free: a chart that keeps its aspect redraws itself after a zoom (its
// width in CSS px changes) and may grow by a few px before the next tick measures it again
const SLACK = 16;
const MAX_ZOOM = 1.6;
const TICK_MS = 200;

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

// What else the stage shows under the views (the server's sheet keeps it): a training page's
// Start, Pause / Resume, Step and Stop and its status, a live measurement's Measure.
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
// again, and the stage and the server would chase each other. The rows are as the server drew
// them (views whose tops are within a few px share one).
function report(component, views, doc, kept) {
  const win = doc.defaultView;
  for (const v of views) v.style.zoom = "1";
  const boxes = views.map((v) => v.getBoundingClientRect());
  const top = Math.min(...boxes.map((b) => b.top));
  const rows = new Set(boxes.map((b) => Math.round(b.top / 8))).size;
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

// The views the question hides, veiled: each alone, or, when every view is hidden and they
// stand side by side in the server's row, the row as one (the question once across it).
function veil(views, names, hidden, text, doc) {
  const row = doc.querySelector(".st-key-stage_row");
  const every = views.length > 1 && names.every((name) => hidden.includes(name));
  const whole = Boolean(row) && every && views.every((v) => row.contains(v));
  if (row && whole) row.setAttribute(VEIL, text);
  else if (row) row.removeAttribute(VEIL);
  views.forEach((v, i) => {
    if (!whole && hidden.includes(names[i])) v.setAttribute(VEIL, text);
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
  for (const el of doc.querySelectorAll(`[${VEIL}]`)) el.removeAttribute(VEIL);
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
    for (const v of views) v.setAttribute(ON, "");
    veil(views, names, hidden, data.question || "", doc);
    if (views.length) {
      const below = [...buttons, ...asked].filter((el) => !el.closest(".st-key-presenter_bar"));
      const [under, key] = report(component, views, doc, below);
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
