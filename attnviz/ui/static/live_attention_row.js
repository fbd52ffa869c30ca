// The self-attention page's live query-row view (attnviz/ui/parts/self_attention.py, a
// components-v2 component: it runs in the app's page, no iframe, offline). The server sends Q, K,
// V as the engine computed them, the causal flag and the factor the scores are multiplied by
// (1/√e, or 1 unscaled) (attnviz/topics/self_attention/scene.py `live_row_data`); here query row
// i is computed on every key press, click or pointer move over the row picker, with no server
// round trip: the scores q_i · k_j, scaled, masked (−∞ for j > i when causal), the softmax
// weights A_ij and the output row Σ_j A_ij v_j. Columns past the page's reveal stay hidden. The
// row goes back (setStateValue "row" = [i, gesture id]) once per gesture: on pointer-up, or
// 300 ms after the last key; the page then moves its `sa_i` slider there. Text nodes only.
// the reveal (index into the page's STEP_NAMES) from which each column shows
const SHOWN_FROM = { score: 2, scaled: 3, masked: 4, weight: 5, output: 6 };

// ---- the math (as attnviz/topics/self_attention/steps.py `compute_steps`, one row) ----
const dot = (a, b) => a.reduce((s, x, n) => s + x * b[n], 0);

export function attentionRow(d, i) {
  const scores = d.k.map((k) => dot(d.q[i], k)); // q_i · k_j
  const scaled = scores.map((s) => s * d.scale);
  const allowed = scaled.map((_, j) => !d.causal || j <= i);
  const top = Math.max(...scaled.filter((_, j) => allowed[j])); // stable: subtract the maximum
  const exps = scaled.map((s, j) => (allowed[j] ? Math.exp(s - top) : 0));
  const total = exps.reduce((a, b) => a + b, 0);
  const weights = exps.map((x) => x / total);
  const output = d.v[0].map((_, c) => weights.reduce((s, w, j) => s + w * d.v[j][c], 0));
  return { scores, scaled, allowed, weights, output };
}

// ---- building the DOM (text nodes only) ----
function el(tag, cls, parent) {
  const node = document.createElement(tag);
  if (cls) node.setAttribute("class", cls);
  if (parent) parent.appendChild(node);
  return node;
}

function build(parentElement) {
  const root = el("div", "lar", parentElement);
  root.setAttribute("data-testid", "liveAttentionRow");
  const head = el("div", "lar-head", root);
  el("span", "lar-title", head).textContent = "Query row i";
  const picker = el("div", "lar-picker", head);
  picker.setAttribute("tabindex", "0");
  picker.setAttribute("role", "slider");
  picker.setAttribute("aria-label", "query patch i of the live row");
  picker.setAttribute("data-testid", "liveAttentionPicker");
  const query = el("span", "lar-query", head);
  const hint = el("p", "lar-hint", root); // (not in lecture mode: the first screen is short)
  hint.textContent = "Click a patch, or focus the row and use the arrow keys: row i follows at once.";
  const table = el("div", "lar-table", root);
  table.setAttribute("role", "table");
  const foot = el("p", "lar-foot", root);
  const out = el("span", "lar-output", foot);
  out.setAttribute("data-testid", "liveAttentionOutput");
  const sum = el("span", "lar-sum", foot);
  return { root, picker, query, table, out, sum, chips: [], rows: [], m: 0 };
}

function cell(row, cls, text) {
  const c = el("span", cls, row);
  c.setAttribute("role", "cell");
  if (text !== undefined) c.textContent = text;
  return c;
}

// the picker's chips and the table's rows, rebuilt when m or the reveal changes
function layout(v) {
  const m = v.d.q.length;
  v.picker.replaceChildren();
  v.chips = Array.from({ length: m }, (_, j) => {
    const chip = el("span", "lar-chip", v.picker);
    chip.textContent = String(j);
    chip.dataset.row = String(j);
    return chip;
  });
  v.picker.setAttribute("aria-valuemin", "0");
  v.picker.setAttribute("aria-valuemax", String(m - 1));
  v.table.replaceChildren();
  const shown = (col) => v.d.reveal >= SHOWN_FROM[col];
  const headers = [["lar-key", "key j"], ["lar-num", "q·k"]];
  if (shown("scaled")) headers.push(["lar-num", v.d.scaled ? "÷ √e" : "(no ÷)"]);
  if (shown("weight")) headers.push(["lar-track lar-hd", "weight"], ["lar-alpha lar-hd", "Aᵢⱼ"]);
  const hrow = el("div", "lar-row lar-header", v.table);
  hrow.setAttribute("role", "row");
  for (const [cls, text] of headers) cell(hrow, cls, text);
  v.rows = Array.from({ length: m }, (_, j) => {
    const row = el("div", "lar-row", v.table);
    row.setAttribute("role", "row");
    cell(row, "lar-key", `key ${j}`);
    const r = { row, score: cell(row, "lar-num lar-score") };
    if (shown("scaled")) r.scaled = cell(row, "lar-num lar-scaled");
    if (shown("weight")) {
      r.bar = el("span", "lar-bar", cell(row, "lar-track"));
      r.alpha = cell(row, "lar-alpha");
      r.alpha.dataset.key = String(j);
    }
    return r;
  });
  v.m = m;
}

// ---- every move: the math and the few nodes it changes ----
// fixed decimals, "−" as the figures write it, never "−0.000"
const fmt = (x, n) => x.toFixed(n).replace(/^-(0\.0*)$/, "$1").replace(/^-/, "−");

function update(v) {
  const { d, i } = v;
  const r = attentionRow(d, i);
  v.chips.forEach((chip, j) => chip.classList.toggle("lar-on", j === i));
  v.picker.setAttribute("aria-valuenow", String(i));
  v.picker.setAttribute("aria-valuetext", `query patch ${i}`);
  v.query.textContent = `q${sub(i)} = (${d.q[i].map((x) => fmt(x, 2)).join(", ")})`;
  const masked = d.reveal >= SHOWN_FROM.masked;
  r.scores.forEach((s, j) => {
    const row = v.rows[j];
    const cut = masked && !r.allowed[j];
    row.row.classList.toggle("lar-cut", cut);
    row.score.textContent = fmt(s, 2);
    if (row.scaled) row.scaled.textContent = cut ? "−∞" : fmt(r.scaled[j], 2);
    if (row.alpha) {
      row.bar.style.width = `${(100 * r.weights[j]).toFixed(1)}%`;
      row.alpha.textContent = fmt(r.weights[j], 3);
    }
  });
  const outShown = d.reveal >= SHOWN_FROM.output;
  v.out.hidden = !outShown;
  v.sum.hidden = d.reveal < SHOWN_FROM.weight;
  const total = r.weights.reduce((a, b) => a + b, 0);
  v.sum.textContent = `Σⱼ A${sub(i)}ⱼ = ${fmt(total, 3)}`;
  v.out.textContent = `out${sub(i)} = Σⱼ A${sub(i)}ⱼ vⱼ = (${r.output.map((x) => fmt(x, 3)).join(", ")})`;
}

const SUBS = "₀₁₂₃₄₅₆₇₈₉";
const sub = (n) => String(n).replace(/\d/g, (c) => SUBS[Number(c)]);

// ---- input: keys, clicks and pointer moves pick i locally; the server hears once per gesture ----
function pick(v, i) {
  const next = Math.max(0, Math.min(v.m - 1, i));
  if (next === v.i) return;
  v.i = next;
  v.dirty = true;
  update(v);
}

function sync(v) {
  sendGesture(v, "row", [v.i], v.i === v.d.row);
}

const KEYS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };

function chipAt(event) {
  const target = event.target.closest ? event.target.closest(".lar-chip") : null;
  return target ? Number(target.dataset.row) : null;
}

function listen(v) {
  v.picker.addEventListener("pointerdown", (event) => {
    v.dragging = true;
    v.picker.setPointerCapture(event.pointerId);
    v.picker.focus({ preventScroll: true });
    const j = chipAt(event);
    if (j !== null) pick(v, j);
    event.preventDefault();
  });
  v.picker.addEventListener("pointermove", (event) => {
    if (!v.dragging) return;
    const under = v.picker.getRootNode().elementFromPoint(event.clientX, event.clientY);
    const j = under && under.classList.contains("lar-chip") ? Number(under.dataset.row) : null;
    if (j !== null) pick(v, j);
  });
  const release = () => {
    if (!v.dragging) return;
    v.dragging = false;
    sync(v);
  };
  v.picker.addEventListener("pointerup", release);
  v.picker.addEventListener("pointercancel", release);
  v.picker.addEventListener("keydown", (event) => {
    let next = null;
    if (event.key in KEYS) next = v.i + KEYS[event.key];
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = v.m - 1;
    if (next === null) return;
    event.preventDefault();
    event.stopPropagation(); // the page's ← / → step buttons must not hear it
    pick(v, next);
    syncSoon(v, sync);
  });
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  if (!data || !Array.isArray(data.q) || !data.q.length) return undefined;
  let v = VIEWS.get(parentElement);
  if (!v || !v.root.isConnected) {
    v = build(parentElement);
    VIEWS.set(parentElement, v);
    listen(v);
    v.i = data.row;
  }
  v.setStateValue = setStateValue;
  v.d = data;
  v.root.classList.toggle("lar-lecture", !!data.lecture);
  if (serverOwns(v, data)) v.i = data.row;
  v.i = Math.max(0, Math.min(data.q.length - 1, v.i));
  layout(v);
  update(v);
  return undefined;
}
