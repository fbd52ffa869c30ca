"""A chart whose figure changed is drawn once, not twice: one change to Streamlit's PlotlyChart
component (streamlit 1.67.0, pinned), served in place of its file (attnviz.ui.static_files).

Streamlit mounts a chart anew whenever its figure changes (the element's id hashes the figure)
and renders it before its frame has measured its width (-1). Plotly then draws it hidden, at no
set width, and draws it again a frame later with the measured width (and Streamlit's theme
applied a second time). Counted with Plotly's `plotly_afterplot`: self-attention's slider,
9 new charts, 18 draws of ~35 ms each, the second batch 100–200 ms after the first.

The change: while the width is unmeasured and the figure names none, the component holds the
chart's place with an empty box of its height; the one draw comes with the width (the first
was hidden). `python -m benchmarks.browser --moves 9`, ms to idle, interleaved on one busy
day: self-attention 633 and 677 → 371 and 522, real block 532 and 594 → 363 and 454.

Served as it is where Streamlit's file lacks that code once (tests/app/test_plotly_once.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from attnviz.ui import static_files

# Inside the component: `v` the measured width (-1: not yet), `N` the figure state, `U` the
# height it is drawn at, `i` JSX, `q` react-plotly's Plot.
ANCHORS = ("let V=v===-1?N.layout.width:Math.max(v,Ve)", "U=g>=We?g:Ge(N.layout.height)")
DRAWN = "children:i(q,{data:N.data"
HELD = "children:v===-1&&N.layout.width===void 0?i(`div`,{style:{height:U}}):i(q,{data:N.data"


def is_component(name: str) -> bool:
    """Whether `name` is the file of Streamlit's PlotlyChart component."""
    return name.startswith("PlotlyChart.") and name.endswith(".js")


def drawn_once(source: str) -> str | None:
    """The component's code with the chart held until its width is measured; None where the
    code is not the one this change was made for."""
    if any(source.count(code) != 1 for code in (*ANCHORS, DRAWN)):
        return None
    return source.replace(DRAWN, HELD, 1)


Then = Callable[[str], str | None]  # a further change to the code (None: as drawn_once left it)


@functools.cache
def served(path: Path, then: Then | None = None) -> bytes | None:
    """The changed component for Streamlit's file at `path` (read once per process)."""
    code = drawn_once(path.read_text(encoding="utf-8"))
    code = code if code is None or then is None else then(code) or code
    return None if code is None else code.encode("utf-8")


def install(then: Then | None = None) -> None:
    """Serve the component `drawn_once`, then changed by `then` (attnviz.ui.plotly_in_view);
    called before the server starts."""
    static_files.change(is_component, functools.partial(served, then=then), "text/javascript")
