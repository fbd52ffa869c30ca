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
  const n = tokens.length, row = data.row || Math.round(font * 1.7); // data.row: on a stage
  const short = (s) => (s.length > 14 ? s.slice(0, 13) + "…" : s);
  const widest = Math.max(1, ...tokens.map((s) => short(s).length));
  const labelW = Math.min(170, 16 + font * 0.62 * widest), gap = 240;
  const width = 2 * labelW + gap, height = (n + 1) * row, y = (i) => row * (i + 0.5);
  const bar = add("div", { class: "hv-bar" }, root);
  for (const hd of heads) { // the head's colour as a swatch: coloured text failed WCAG contrast
    const item = add("span", { class: "hv-head" }, bar);
    add("span", { class: "hv-swatch", style: `background:${hd.color}` }, item);
    item.append(`head ${hd.head}`);
  }
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
