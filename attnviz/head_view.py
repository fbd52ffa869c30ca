"""The interactive head view of the text page, as BertViz draws it: tokens in two columns joined
by lines whose opacity is the weight, one colour per head; hovering a token isolates its lines,
clicking a query token reports it back (a Streamlit v2 component's state "query").

This module only builds the JSON the view needs and holds its CSS and JavaScript; the page
registers them with st.components.v2. User text goes in the JSON and is written with
textContent, never parsed as HTML. The view has its own SVG/PNG download buttons.
"""

from __future__ import annotations

import numpy as np

from attnviz.plots_text import HEAD_COLORS, HEAD_VIEW_MAX


def head_view_data(
    weights: np.ndarray,
    tokens: list[str],
    heads: list[int],
    query: int | None,
    font_px: int = 14,
    threshold: float = 0.01,
) -> dict:
    """JSON for the interactive head view (HEAD_VIEW_JS): the first HEAD_VIEW_MAX tokens and, per
    shown head, its lines (query i, key j, weight w ≥ threshold). Tokens stay plain text: the
    script writes them with textContent, never as HTML."""
    t = min(len(tokens), HEAD_VIEW_MAX)
    lines = []
    for h in heads:
        q, k = np.nonzero(weights[h, :t, :t] >= threshold)
        w = np.round(weights[h, q, k].astype(np.float64), 3)
        color = HEAD_COLORS[h % len(HEAD_COLORS)]
        lines.append(
            {"head": int(h), "color": color, "q": q.tolist(), "k": k.tolist(), "w": w.tolist()}
        )
    labels = [tok.replace(" ", "␣").replace("\n", "⏎") or "∅" for tok in tokens[:t]]
    return {"tokens": labels, "heads": lines, "query": query, "font": font_px}


HEAD_VIEW_CSS = """
.hv { color: var(--st-text-color, #262730); font-family: var(--st-font, sans-serif); }
.hv-bar { display: flex; flex-wrap: wrap; gap: .8em; align-items: center; font-size: .85em; }
.hv-status { height: 4.2em; overflow-y: auto; font-size: .85em; opacity: .85; margin: .2em 0; }
.hv svg line { pointer-events: none; }
.hv svg g.tok { cursor: default; }
.hv svg g.q { cursor: pointer; }
.hv svg g.hot text { font-weight: 700; }
.hv svg g.sel text { text-decoration: underline; }
.hv button { font: inherit; color: inherit; background: transparent; cursor: pointer;
  border: 1px solid rgba(128, 128, 128, .5); border-radius: 4px; padding: 0 .6em; }
"""

HEAD_VIEW_JS = """
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const NS = "http://www.w3.org/2000/svg";
  parentElement.querySelectorAll(".hv").forEach((n) => n.remove());
  const root = document.createElement("div");
  root.className = "hv";
  parentElement.appendChild(root);
  const add = (tag, attrs, parent, text) => {
    const e = tag === "div" || tag === "span" || tag === "button"
      ? document.createElement(tag) : document.createElementNS(NS, tag);
    for (const [a, v] of Object.entries(attrs)) e.setAttribute(a, v);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  };
  const { tokens, heads, font } = data;
  const n = tokens.length, row = Math.round(font * 1.7);
  const short = (s) => (s.length > 14 ? s.slice(0, 13) + "…" : s);
  const widest = Math.max(1, ...tokens.map((s) => short(s).length));
  const labelW = Math.min(170, 16 + font * 0.62 * widest), gap = 240;
  const width = 2 * labelW + gap, height = (n + 1) * row, y = (i) => row * (i + 0.5);
  const bar = add("div", { class: "hv-bar" }, root);
  for (const hd of heads) add("span", { style: `color:${hd.color}` }, bar, `▬ head ${hd.head}`);
  const svgBtn = add("button", { type: "button" }, bar, "⤓ SVG");
  const pngBtn = add("button", { type: "button" }, bar, "⤓ PNG");
  const hint = "Hover a token to isolate its lines" +
    (data.clickable ? "; click a query token (left) to pick it below." : ".");
  const status = add("div", { class: "hv-status" }, root, hint);
  const svg = add("svg", { width, height, viewBox: `0 0 ${width} ${height}`,
    "font-size": font, "font-family": "sans-serif" }, root);
  const lines = [];
  for (const hd of heads) {
    hd.w.forEach((w, m) => {
      const el = add("line", { x1: labelW + 4, y1: y(hd.q[m]), x2: labelW + gap - 4,
        y2: y(hd.k[m]), stroke: hd.color, "stroke-width": 2, "stroke-opacity": w }, svg);
      lines.push({ el, q: hd.q[m], k: hd.k[m], w, head: hd.head });
    });
  }
  const labels = [[], []];
  const focus = (side, i) => {
    labels.flat().forEach((g) => g.classList.remove("hot"));
    if (side === null) {
      lines.forEach((L) => { L.el.style.display = ""; });
      status.textContent = hint;
      return;
    }
    const mine = lines.filter((L) => (side ? L.k : L.q) === i);
    lines.forEach((L) => { L.el.style.display = "none"; });
    mine.forEach((L) => { L.el.style.display = ""; labels[1 - side][side ? L.q : L.k].classList.add("hot"); });
    labels[side][i].classList.add("hot");
    const parts = heads.map((hd) => `head ${hd.head}: ` + mine.filter((L) => L.head === hd.head)
      .sort((a, b) => b.w - a.w).slice(0, heads.length > 4 ? 2 : 3)
      .map((L) => `${tokens[side ? L.q : L.k]} ${L.w.toFixed(2)}`).join(", "));
    status.textContent = `${side ? "key" : "query"} #${i} '${tokens[i]}': ${parts.join(" · ")}`;
  };
  [0, 1].forEach((side) => tokens.forEach((tok, i) => {
    const g = add("g", { class: "tok" + (side || !data.clickable ? "" : " q") + (!side && i === data.query ? " sel" : ""),
      "data-side": side, "data-i": i }, svg);
    add("rect", { x: side ? labelW + gap : 0, y: y(i) - row / 2, width: labelW, height: row,
      fill: "transparent" }, g);
    add("text", { x: side ? labelW + gap + 8 : labelW - 8, y: y(i), fill: "currentColor",
      "text-anchor": side ? "start" : "end", "dominant-baseline": "middle" }, g, short(tok));
    add("title", {}, g, `${side ? "key" : "query"} #${i}: ${tok}`);
    g.addEventListener("mouseenter", () => focus(side, i));
    g.addEventListener("mouseleave", () => focus(null));
    if (!side && data.clickable) g.addEventListener("click", () => setStateValue("query", i));
    labels[side].push(g);
  }));
  const svgText = () => {
    const copy = svg.cloneNode(true);
    copy.setAttribute("xmlns", NS);
    copy.setAttribute("style", "color:#212529;background:#fff");
    copy.querySelectorAll("line").forEach((l) => l.removeAttribute("style"));
    return new XMLSerializer().serializeToString(copy);
  };
  const save = (url, name) => {
    const a = document.createElement("a");
    a.href = url; a.download = name; document.body.appendChild(a); a.click(); a.remove();
  };
  svgBtn.onclick = () => save(URL.createObjectURL(new Blob([svgText()], { type: "image/svg+xml" })), "head_view.svg");
  pngBtn.onclick = () => {
    const img = new Image();
    img.onload = () => {
      const c = document.createElement("canvas");
      c.width = 2 * width; c.height = 2 * height;
      const ctx = c.getContext("2d");
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, c.width, c.height);
      ctx.scale(2, 2); ctx.drawImage(img, 0, 0);
      save(c.toDataURL("image/png"), "head_view.png");
    };
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svgText());
  };
}
"""
