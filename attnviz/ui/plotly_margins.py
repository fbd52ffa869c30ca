"""A view drawn anew starts from the margins Plotly's automargin reached for it last time: a
third change to Streamlit's PlotlyChart component (after attnviz.ui.plotly_once's and
attnviz.ui.plotly_in_view's), appended to its code as static/plotly_margins.js.

Most views give Plotly small margins and let automargin grow them for their labels (token
axes, colour bars); Plotly then draws the chart, finds its labels pushing out, and draws it
all again: twice the time (attention at scale's maps 66 → 32 ms, the eight self-attention
steps 15 → 7 ms each, measured one by one in Chromium). Streamlit draws a changed chart anew,
so every move paid for both draws.

The component's Plotly (window.Plotly) draws a fresh chart of a named view (its download's
file name) from the margins it reached the last time this page drew that view with the same
layout and traces (leaving out the title's text, the notes and a heat map's cells under a fixed
colour range, which push no margin): labels that still fit draw once, within 2 px of a fresh
draw (Plotly's pad grows from 10 to 12 px). Automargin stays on; new labels or fonts make
another key and draw as a fresh chart. A chart too short for its margins, which Plotly
squeezes, reaches other margins from squeezed ones: it is laid out again from its own and from
then on drawn as a fresh chart. tests/browser/test_margins_kept.py checks all three.
"""

from __future__ import annotations

from pathlib import Path

SCRIPT = Path(__file__).parent / "static" / "plotly_margins.js"
ANCHOR = "return window.Plotly=e,e"  # the bundle hands its Plotly to the page


def remembered(source: str) -> str | None:
    """The component's code with the script appended; None where its bundle does not set
    window.Plotly once (the script would find no Plotly) or already has it."""
    if source.count(ANCHOR) != 1 or "$margins" in source:
        return None
    return source + "\n" + SCRIPT.read_text(encoding="utf-8")
