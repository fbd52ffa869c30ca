"""What a person reads inside each drawn Plotly figure, measured in Chromium: every text box
(title, axis titles, tick labels, colour-bar ticks and title, legend entries, annotations) as a
rotated rectangle in page pixels, its font size, and the figure's box. The layout checker
(tests/browser/test_layout_checker.py) asks: do two text boxes of one figure overlap, is a tick
label cut by its figure's edge or drawn over a heat map's cells, is a tick font too small to
read from the back of a hall.

Boxes are each SVG text's `getBBox()` (the middle 75 % of its line height, about where its
letters' ink is: two lines set one font size apart do not count as overlapping) mapped through
its screen matrix: a label Plotly rotates (by 30°, 45° or 90°) is a rotated rectangle, compared
exactly (separating axes), so rotated neighbours that do not touch are not reported.
"""

from __future__ import annotations

import itertools

FIGURE_TEXT = """() => {
  const vis = (el) => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && el.checkVisibility({visibilityProperty: true}); };
  const kinds = [
    ['title', '.gtitle'], ['axis title', '[class^="g-x"][class$="title"] text, '
      + '[class^="g-y"][class$="title"] text'],
    ['x tick', '.xaxislayer-above text'], ['y tick', '.yaxislayer-above text'],
    ['colour bar', '.colorbar text'], ['legend', '.legendtext'],
    ['annotation', '.annotation-text'],
  ];
  const corners = (node) => {  // the line box's middle 75 %: about the ink of its letters
    const b = node.getBBox(), m = node.getScreenCTM();
    const y0 = b.y + 0.125 * b.height, y1 = b.y + 0.875 * b.height;
    return [[b.x, y0], [b.x + b.width, y0], [b.x + b.width, y1], [b.x, y1]].map(([x, y]) =>
      [m.a * x + m.c * y + m.e + scrollX, m.b * x + m.d * y + m.f + scrollY]);
  };
  const out = [];
  for (const el of document.querySelectorAll('.js-plotly-plot')) {
    if (!vis(el)) continue;
    const r = el.querySelector('.main-svg').getBoundingClientRect();
    const texts = [];
    for (const [kind, sel] of kinds) {
      for (const node of el.querySelectorAll(sel)) {
        const lines = [...node.querySelectorAll('tspan.line')].map((t) => t.textContent);
        const text = (lines.length ? lines.join(' ') : node.textContent || '').trim();
        if (!text || node.getBBox().width === 0) continue;
        texts.push({kind, text: text.slice(0, 40), corners: corners(node),
          size: parseFloat(getComputedStyle(node).fontSize)});
      }
    }
    const title = el.querySelector('.gtitle');
    const heading = title ? [...title.querySelectorAll('tspan.line')].map((t) => t.textContent)
      .join(' ') || title.textContent : '';
    const maps = [...el.querySelectorAll('.hm image')].map((n) => n.getBoundingClientRect())
      .filter((m) => m.width > 0 && m.height > 0)
      .map((m) => [m.left + scrollX, m.top + scrollY, m.right + scrollX, m.bottom + scrollY]);
    out.push({title: heading.slice(0, 60), texts, maps, spec: (el.layout.title || {}).text || '',
      box: {left: r.left + scrollX, right: r.right + scrollX, top: r.top + scrollY,
            bottom: r.bottom + scrollY}});
  }
  const first = [...document.querySelectorAll('.js-plotly-plot')].find((el) => el.layout);
  const source = (el) => (el.querySelector('annotation') || el).textContent.trim().slice(0, 60);
  // a display formula or code block wider than its box scrolls inside it (KaTeX's 2 px struts,
  // .vlist-s, past a formula's box are allowed: no scroll bar shows for them)
  const wide = [...document.querySelectorAll('.katex-display, [data-testid="stCode"] pre')]
    .filter((el) => vis(el) && el.scrollWidth > el.clientWidth + 3)
    .map((el) => ({text: source(el), scroll: el.scrollWidth, client: el.clientWidth}));
  return {figures: out, scrollWidth: document.documentElement.scrollWidth, width: innerWidth,
          template: first ? first.layout.template || null : null, wide};
}"""


def read_figure_text(page) -> dict:
    """{figures: [{title, texts: [{kind, text, corners, size}], maps, spec, box}], scrollWidth,
    width, template, wide}: `maps` the boxes of its heat maps' cells ([left, top, right,
    bottom]), `spec` the title text the figure was given (the frontend's, markup included),
    `template` the Plotly template the frontend applied (its theme), for drawing
    figures the same way outside the app (tests/support/bare_figures.py); `wide` the display
    formulas and code blocks that scroll sideways inside their box ({text, scroll, client})."""
    return page.evaluate(FIGURE_TEXT)


def _project(corners: list, axis: tuple[float, float]) -> tuple[float, float]:
    dots = [x * axis[0] + y * axis[1] for x, y in corners]
    return min(dots), max(dots)


def _edges(corners: list) -> list[tuple[float, float]]:
    out = []
    for (x1, y1), (x2, y2) in itertools.pairwise([*corners, corners[0]]):
        length = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5 or 1.0
        out.append((-(y2 - y1) / length, (x2 - x1) / length))  # the edge's unit normal
    return out


def overlap(a: list, b: list, slack: float = 1.0) -> bool:
    """Whether two convex quadrilaterals (corner lists) overlap by more than `slack` px along
    every separating axis (the edges' normals of both)."""
    for axis in _edges(a)[:2] + _edges(b)[:2]:  # a rectangle's 4 normals are 2 directions
        lo_a, hi_a = _project(a, axis)
        lo_b, hi_b = _project(b, axis)
        if min(hi_a, hi_b) - max(lo_a, lo_b) <= slack:
            return False
    return True


def collisions(figure: dict) -> list[str]:
    """Pairs of text boxes of one figure that overlap, said as a person would."""
    return [
        f"{a['kind']} {a['text']!r} overlaps {b['kind']} {b['text']!r}"
        for a, b in itertools.combinations(figure["texts"], 2)
        if overlap(a["corners"], b["corners"])
    ]


def clipped(figure: dict, slack: float = 1.0) -> list[str]:
    """Text boxes that reach outside their figure (cut at its edge)."""
    box = figure["box"]
    out = []
    for t in figure["texts"]:
        xs, ys = [x for x, _ in t["corners"]], [y for _, y in t["corners"]]
        if (
            min(xs) < box["left"] - slack
            or max(xs) > box["right"] + slack
            or min(ys) < box["top"] - slack
            or max(ys) > box["bottom"] + slack
        ):
            out.append(f"{t['kind']} {t['text']!r}")
    return out


def over_maps(figure: dict, slack: float = 2.0) -> list[str]:
    """Tick labels drawn over a heat map's cells (a neighbouring map's labels in a gap too narrow
    for them: the real block's Q, K, V on a phone)."""
    out = []
    for t in figure["texts"]:
        if t["kind"] not in ("x tick", "y tick"):
            continue
        for left, top, right, bottom in figure.get("maps", []):
            cells = [[left, top], [right, top], [right, bottom], [left, bottom]]
            if overlap(t["corners"], cells, slack):
                out.append(f"{t['kind']} {t['text']!r} over a map's cells")
                break
    return out


def small_ticks(figure: dict, least: float) -> list[str]:
    """Tick labels (axes and colour bars) set in a font below `least` px."""
    return [
        f"{t['kind']} {t['text']!r} at {t['size']:.0f} px"
        for t in figure["texts"]
        if t["kind"] in ("x tick", "y tick", "colour bar") and t["size"] < least - 0.5
    ]
