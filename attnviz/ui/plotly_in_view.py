"""A chart is drawn when it comes near the screen, not while it is far below it: a second change
to Streamlit's PlotlyChart component (streamlit 1.67.0, pinned), over attnviz.ui.plotly_once's.

A move that changes a page's charts redraws every one of them, ~28 ms each in Chromium, though a
person sees the two or three on the screen: self-attention's slider redraws 8 matrices, 6 of
them below the first screen at 1920×1080. Here a chart holds its place (an empty box of its
height, as before its width is known) until an IntersectionObserver sees the box within
MARGIN of the viewport; then it is drawn, and stays drawn. Printing draws every chart first.

A server started with ATTNVIZ_DRAW_EVERY_CHART=1 (the test servers: their checks read every
chart of a page at once) serves the component without this change;
tests/browser/test_drawn_in_view.py checks the change itself.
"""

from __future__ import annotations

import os

# drawn this far before it scrolls into view (scrollMargin: Streamlit's page scrolls in a box,
# whose edge rootMargin does not move; a browser without it draws a chart as it comes in)
MARGIN = "600px 0px"
EVERY = "ATTNVIZ_DRAW_EVERY_CHART"
ANCHOR = "let V=v===-1?N.layout.width:Math.max(v,Ve)"  # a statement of the component's body
HELD = "children:v===-1&&N.layout.width===void 0?i(`div`,{style:{height:U}})"  # plotly_once's
AHEAD = MARGIN.split("px")[0]
# `$seen`: the chart is near the screen (or printed); `$near` its empty box. Measured before the
# first paint (a chart redrawn on the screen, a training run's map 5 times a second, never shows
# an empty frame), then watched from afar
WATCH = (
    "let[$seen,$see]=(0,P.useState)(()=>typeof IntersectionObserver>`u`),$near=(0,P.useRef)(null);"
    "(0,P.useLayoutEffect)(()=>{if($seen||!$near.current)return;"
    "let r=$near.current.getBoundingClientRect();"
    "if(r.width>0&&r.top<innerHeight+" + AHEAD + "&&r.bottom>-" + AHEAD + "){$see(!0);return}"
    "let o=new IntersectionObserver(t=>{t.some(t=>t.isIntersecting)&&$see(!0)},"
    "{rootMargin:`" + MARGIN + "`,scrollMargin:`" + MARGIN + "`}),p=()=>$see(!0);"
    "return o.observe($near.current),addEventListener(`beforeprint`,p),"
    "()=>{o.disconnect(),removeEventListener(`beforeprint`,p)}},[$seen]);"
)
NEAR = "children:(v===-1&&N.layout.width===void 0)||!$seen?i(`div`,{ref:$near,style:{height:U}})"


def in_view(source: str) -> str | None:
    """plotly_once's component code with each chart drawn once near the screen; None where it
    is not the code this change was made for."""
    if any(source.count(code) != 1 for code in (ANCHOR, HELD)) or "$seen" in source:
        return None
    return source.replace(ANCHOR, WATCH + ANCHOR, 1).replace(HELD, NEAR, 1)


def wanted() -> bool:
    """Whether this server draws charts near the screen only (not a test server's choice)."""
    return os.environ.get(EVERY) != "1"
