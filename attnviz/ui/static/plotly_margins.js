;(() => {  // AttnViz (attnviz/ui/plotly_margins.py): a view drawn anew starts from its margins
  const P = window.Plotly;
  if (!P || !P.react || P.$margins) return;
  P.$margins = true;
  const react = P.react, held = new Map(), KEEP = 200, SIDES = ['l', 'r', 't', 'b'];
  const PAYLOAD = ['z', 'text', 'customdata', 'hovertext'];  // a heat map's cells and hover
  const fixed = (trace, layout) => {  // a heat map whose colour bar cannot change with its z
    const axis = trace.coloraxis && layout[trace.coloraxis];
    if (axis) return axis.showscale === false || (axis.cmin != null && axis.cmax != null);
    return trace.showscale === false || (trace.zmin != null && trace.zmax != null);
  };
  // what decides the margins automargin reaches: the layout but for its title's text (unless
  // the title pushes a margin) and its notes (they never do), and the traces but for a heat
  // map's cells (their values, text and hover) where its colour range is fixed
  const shape = (trace, layout) => trace.type === 'heatmap' && fixed(trace, layout)
    ? Object.fromEntries(Object.entries(trace).filter(([k]) => !PAYLOAD.includes(k)))
    : trace;
  // a fresh chart of a named view (the file name its download button gives), drawn at a width
  const keyOf = (gd, fig) => {
    const {template, annotations, ...layout} = fig.layout;
    if (layout.title && !layout.title.automargin) layout.title = {...layout.title, text: null};
    const name = ((fig.config || {}).toImageButtonOptions || {}).filename;
    if (gd._fullLayout || !name || !layout.width) return null;
    const traces = (fig.data || []).map((trace) => shape(trace, layout));
    return location.pathname + '|' + name + '|' + JSON.stringify([layout, traces]);
  };
  const remember = (gd, key) => {
    const full = gd._fullLayout, size = full && full._size, given = full && full.margin;
    if (!size || !given) return;
    // Plotly pads each push by min(12, the margins): drawn from these wider margins, the pad
    // can grow (10 → 12 px); the margins a draw from them reaches, given up front
    const was = Math.min(12, ...SIDES.map((s) => given[s]));
    const pad = Math.min(12, ...SIDES.map((s) => size[s]));
    const grown = (s) => size[s] + (size[s] > given[s] ? pad - was : 0);
    held.delete(key);
    held.set(key, Object.fromEntries(SIDES.map((s) => [s, grown(s)])));
    if (held.size > KEEP) held.delete(held.keys().next().value);
  };
  // a chart whose margins Plotly squeezed (too short for them) reaches others from others
  const unsure = new Set();
  P.react = function (gd, fig, ...rest) {
    const key = fig && !Array.isArray(fig) && fig.layout ? keyOf(gd, fig) : null;
    if (key === null) return react.call(this, gd, fig, ...rest);
    const margins = unsure.has(key) ? null : held.get(key), given = fig.layout.margin;
    if (margins) fig.layout.margin = {...given, ...margins};
    return react.call(this, gd, fig, ...rest).then((out) => {
      const again = '_redrawFromAutoMarginCount' in gd._fullLayout;  // automargin drew it twice
      if (!margins || !again) return remember(gd, key), out;
      if (unsure.add(key).size > KEEP) unsure.clear();  // from now on drawn as a fresh chart
      return P.relayout(gd, {margin: given || null}).then(() => out);
    });
  };
})();
