// The soft-select page's live query view (attnviz/ui/parts/soft_select.py, a components-v2 component:
// it runs in the app's page, no iframe, offline). The server sends the table, the score function
// with its parameters exactly as the engine's `score` gets them, the temperature and the query
// (attnviz/topics/soft_select/scene.py `live_data`); here the weights α = softmax(a(q, k_j) / T)
// and the soft output Σ α_j v_j are recomputed on every pointer move and arrow key, with no
// server round trip. The query is sent back (setStateValue "query" = [q1, q2, gesture id]) once
// per gesture: on pointer-up, or 300 ms after the last arrow key; the page then moves its
// sliders there (one rerun per gesture). Every label is a text node: row names come from users.
const SVG = "http://www.w3.org/2000/svg";
const SIZE = 260; // the plane's viewBox, SIZE × SIZE user units: one unit per CSS pixel at full size
const PAD = 22;

// ---- the math (a faithful copy of attnviz/core/attention.py `score` and `masked_softmax`) ----
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const matVec = (m, v) => m.map((row) => dot(row, v));
const norm = (v) => Math.sqrt(dot(v, v));

function scoreOf(kind, q, k, p) {
  switch (kind) {
    case "dot": return dot(q, k);
    case "scaled_dot": return dot(q, k) / Math.sqrt(q.length);
    case "additive": {
      const qh = matVec(p.w_q, q), kh = matVec(p.w_k, k);
      return p.w.reduce((s, w, h) => s + w * Math.tanh(qh[h] + kh[h]), 0);
    }
    case "general": return dot(q, matVec(p.w, k)); // qᵀ W k
    case "cosine": return dot(q, k) / (Math.max(norm(q), 1e-8) * Math.max(norm(k), 1e-8));
    case "neg_sq_dist": return -q.reduce((s, x, i) => s + (x - k[i]) ** 2, 0);
    default: throw new Error(`unknown score function ${kind}`);
  }
}

export function softSelect(d, q) {
  const scores = d.keys.map((k) => scoreOf(d.score, q, k, d.params));
  const scaled = scores.map((s) => s / d.temperature);
  const top = Math.max(...scaled); // stable: subtract the maximum
  const exps = scaled.map((s) => Math.exp(s - top));
  const total = exps.reduce((a, b) => a + b, 0);
  const weights = exps.map((e) => e / total);
  const output = d.values[0].map((_, j) => weights.reduce((s, w, i) => s + w * d.values[i][j], 0));
  return { scores, weights, output };
}

// ---- building the DOM once (text nodes only) ----
function el(tag, cls, parent, ns) {
  const node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  if (cls) node.setAttribute("class", cls);
  if (parent) parent.appendChild(node);
  return node;
}

function build(parentElement) {
  const root = el("div", "lsv", parentElement);
  root.setAttribute("data-testid", "liveSelect");
  const hint = el("p", "lsv-hint", root);
  hint.textContent = "Drag q, or focus it and use the arrow keys: the weights follow at once.";
  const body = el("div", "lsv-body", root);
  const svg = el("svg", "lsv-plane", body, SVG);
  svg.setAttribute("viewBox", `0 0 ${SIZE} ${SIZE}`);
  // a group, not an image: an image's content is presentational, and q inside it is a control
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", "The keys in the (q1, q2) plane and the query q");
  const grid = el("g", "lsv-grid", svg, SVG);
  const dots = el("g", "lsv-keys", svg, SVG);
  const handle = el("g", "lsv-handle", svg, SVG);
  handle.setAttribute("tabindex", "0");
  handle.setAttribute("role", "slider");
  handle.setAttribute("aria-label", "query q: the arrow keys move it");
  handle.setAttribute("data-testid", "liveSelectHandle");
  el("circle", "lsv-q", handle, SVG).setAttribute("r", "11");
  const qText = el("text", "lsv-qlabel", handle, SVG);
  qText.textContent = "q";
  const panel = el("div", "lsv-panel", body);
  const query = el("p", "lsv-query", panel);
  const bars = el("div", "lsv-bars", panel);
  const out = el("p", "lsv-output", panel);
  out.setAttribute("data-testid", "liveSelectOutput");
  return { root, svg, grid, dots, handle, query, bars, out, rows: [], marks: [] };
}

// ---- the plane's coordinates: the keys and the sliders' range, padded ----
function frame(d) {
  const xs = [d.low, d.high, ...d.keys.map((k) => k[0])];
  const ys = [d.low, d.high, ...d.keys.map((k) => k[1])];
  const lo = Math.min(...xs, ...ys), hi = Math.max(...xs, ...ys);
  const span = hi - lo || 1;
  const px = (v) => PAD + ((v - lo) / span) * (SIZE - 2 * PAD);
  const py = (v) => SIZE - px(v);
  const fromPx = (x) => lo + ((x - PAD) / (SIZE - 2 * PAD)) * span;
  return { lo, hi, px, py, fromX: fromPx, fromY: (y) => fromPx(SIZE - y) };
}

function drawGrid(v, f) {
  v.grid.replaceChildren();
  for (const [x1, y1, x2, y2] of [
    [f.px(f.lo), f.py(0), f.px(f.hi), f.py(0)], [f.px(0), f.py(f.lo), f.px(0), f.py(f.hi)],
  ]) {
    const line = el("line", "lsv-axis", v.grid, SVG);
    for (const [name, value] of Object.entries({ x1, y1, x2, y2 })) line.setAttribute(name, value);
  }
  for (const [text, x, y, anchor] of [
    ["q₁", f.px(f.hi) - 2, f.py(0) + 16, "end"], ["q₂", f.px(0) + 5, f.py(f.hi) + 12, "start"],
  ]) {
    const name = el("text", "lsv-axisname", v.grid, SVG);
    name.setAttribute("x", x);
    name.setAttribute("y", y);
    name.setAttribute("text-anchor", anchor);
    name.textContent = text;
  }
  const box = el("rect", "lsv-range", v.grid, SVG); // where the sliders can put q
  box.setAttribute("x", f.px(v.d.low));
  box.setAttribute("y", f.py(v.d.high));
  box.setAttribute("width", f.px(v.d.high) - f.px(v.d.low));
  box.setAttribute("height", f.py(v.d.low) - f.py(v.d.high));
}

function drawKeys(v, f) {
  v.dots.replaceChildren();
  v.rows = [];
  v.bars.replaceChildren();
  const labels = [];
  v.marks = v.d.keys.map((k, i) => {
    const g = el("g", "lsv-key", v.dots, SVG);
    g.setAttribute("transform", `translate(${f.px(k[0])} ${f.py(k[1])})`);
    const dotEl = el("circle", "lsv-dot", g, SVG);
    const label = el("text", "lsv-label", g, SVG);
    label.textContent = v.d.names[i];
    labels.push(label);
    const row = el("div", "lsv-row", v.bars);
    el("span", "lsv-name", row).textContent = v.d.names[i];
    const track = el("span", "lsv-track", row);
    const bar = el("span", "lsv-bar", track);
    const num = el("span", "lsv-alpha", row);
    num.setAttribute("data-row", String(i));
    v.rows.push({ bar, num });
    return dotEl;
  });
  placeLabels(v, f, labels);
  // names measured in a fallback font are placed again once the page's font has loaded
  document.fonts?.ready.then(() => { if (labels[0]?.isConnected) placeLabels(v, f, labels); });
}

// Each name beside its key, on the side that covers least of the other keys (at their largest),
// the query, the names placed before it and the plane's edge: up and right when that is clear.
const SIDES = [[9, -8, "start"], [-9, -8, "end"], [9, 18, "start"], [-9, 18, "end"]];
const span = (a0, a1, b0, b1) => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
const overlap = (a, b) => span(a[0], a[2], b[0], b[2]) * span(a[1], a[3], b[1], b[3]);

function placeLabels(v, f, labels) {
  const at = v.d.keys.map((k) => [f.px(k[0]), f.py(k[1])]);
  const q = [f.px(v.q[0]), f.py(v.q[1])];
  const square = ([x, y], r) => [x - r, y - r, x + r, y + r];
  const blocks = [...at.map((p) => square(p, 14)), square(q, 12)]; // dots reach r = 14
  labels.forEach((label, i) => {
    let best = null;
    for (const [dx, dy, anchor] of SIDES) {
      label.setAttribute("x", dx);
      label.setAttribute("y", dy);
      label.setAttribute("text-anchor", anchor);
      const b = label.getBBox();
      const w = b.width || 8 * label.textContent.length, h = b.height || 16;
      const left = b.width ? b.x : anchor === "start" ? dx : dx - w;
      const [x, y] = [at[i][0] + left, at[i][1] + dy];
      const box = [x, y - 0.8 * h, x + w, y + 0.2 * h]; // a baseline 0.2 of the height up
      const area = (box[2] - box[0]) * (box[3] - box[1]);
      const cost = blocks.reduce((sum, o, j) => sum + (j === i ? 0 : overlap(box, o)), 0)
        + 4 * (area - overlap(box, [0, 0, SIZE, SIZE]));
      if (!best || cost < best.cost) best = { cost, dx, dy, anchor, box };
      if (cost === 0) break;
    }
    label.setAttribute("x", best.dx);
    label.setAttribute("y", best.dy);
    label.setAttribute("text-anchor", best.anchor);
    label.setAttribute("data-side", `${best.dx},${best.dy}`);
    blocks.push(best.box);
  });
}

// ---- every move: the math and the few nodes it changes ----
function update(v) {
  const { d, q, f } = v;
  const r = softSelect(d, q);
  v.handle.setAttribute("transform", `translate(${f.px(q[0])} ${f.py(q[1])})`);
  v.handle.setAttribute("aria-valuetext", `q = (${q[0].toFixed(v.dec)}, ${q[1].toFixed(v.dec)})`);
  v.query.textContent = `q = (${q[0].toFixed(v.dec)}, ${q[1].toFixed(v.dec)}) · T = ${d.temperature}`;
  const best = r.weights.indexOf(Math.max(...r.weights));
  r.weights.forEach((w, i) => {
    v.marks[i].setAttribute("r", String(4 + 10 * Math.sqrt(w)));
    v.marks[i].classList.toggle("lsv-top", i === best);
    v.rows[i].bar.style.width = `${(100 * w).toFixed(1)}%`;
    v.rows[i].num.textContent = w.toFixed(3);
  });
  const mix = r.output.map((x) => x.toFixed(3)).join(", ");
  const sum = r.weights.reduce((a, b) => a + b, 0).toFixed(3);
  v.out.textContent = `Σⱼ αⱼ vⱼ = ${mix}   (Σⱼ αⱼ = ${sum})`;
}

// ---- input: pointer and keys move q locally; the server hears once per gesture ----
function snap(v, value) {
  const { low, high, step } = v.d;
  const n = Math.round((Math.min(high, Math.max(low, value)) - low) / step);
  return Number((low + n * step).toFixed(v.dec));
}

function moveTo(v, q1, q2) {
  const q = [snap(v, q1), snap(v, q2)];
  if (q[0] === v.q[0] && q[1] === v.q[1]) return;
  v.q = q;
  v.dirty = true;
  update(v);
}

function sync(v) {
  sendGesture(v, "query", [v.q[0], v.q[1]], v.q[0] === v.d.query[0] && v.q[1] === v.d.query[1]);
}

function pointAt(v, event) {
  const box = v.svg.getBoundingClientRect();
  const x = ((event.clientX - box.left) / box.width) * SIZE;
  const y = ((event.clientY - box.top) / box.height) * SIZE;
  moveTo(v, v.f.fromX(x), v.f.fromY(y));
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

function listen(v) {
  v.svg.addEventListener("pointerdown", (event) => {
    v.dragging = true;
    v.svg.setPointerCapture(event.pointerId);
    v.handle.focus({ preventScroll: true });
    pointAt(v, event);
    event.preventDefault();
  });
  v.svg.addEventListener("pointermove", (event) => { if (v.dragging) pointAt(v, event); });
  const release = () => {
    if (!v.dragging) return;
    v.dragging = false;
    sync(v);
  };
  v.svg.addEventListener("pointerup", release);
  v.svg.addEventListener("pointercancel", release);
  v.handle.addEventListener("keydown", (event) => {
    const dir = ARROWS[event.key];
    if (!dir) return;
    event.preventDefault();
    moveTo(v, v.q[0] + dir[0] * v.d.step, v.q[1] + dir[1] * v.d.step);
    syncSoon(v, sync);
  });
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  if (!data || !Array.isArray(data.keys) || !data.keys.length) return undefined;
  let v = VIEWS.get(parentElement);
  if (!v || !v.root.isConnected) {
    v = build(parentElement);
    VIEWS.set(parentElement, v);
    listen(v);
    v.q = data.query.slice();
  }
  v.setStateValue = setStateValue;
  v.d = data;
  v.dec = Math.max(0, Math.ceil(-Math.log10(data.step) - 1e-9));
  v.root.classList.toggle("lsv-lecture", !!data.lecture);
  v.f = frame(data);
  if (serverOwns(v, data)) v.q = data.query.slice();
  drawGrid(v, v.f);
  drawKeys(v, v.f);
  update(v);
  return undefined;
}
