"""attnviz.ui.plotly_once: Streamlit's chart component, changed so that a new chart is drawn
once (what that draws is counted in Chromium: tests/browser/test_drawn_once.py)."""

from __future__ import annotations

from pathlib import Path

import streamlit

from attnviz.ui.plotly_once import DRAWN, HELD, drawn_once, is_component

STATIC = Path(streamlit.__file__).parent / "static" / "static" / "js"


def test_the_installed_component_holds_a_chart_until_its_width_is_measured():
    """The pinned Streamlit's file has the code the change expects (a new Streamlit fails here:
    look at its PlotlyChart component again before changing the pin)."""
    (path,) = [p for p in STATIC.iterdir() if is_component(p.name)]
    source = path.read_text(encoding="utf-8")
    code = drawn_once(source)
    assert code is not None, f"{path.name}: not the code attnviz.ui.plotly_once changes"
    assert (code.count(HELD), code.count(DRAWN)) == (1, 0)
    assert len(code) - len(source) == len(HELD) - len(DRAWN)


def test_other_code_is_served_as_it_is():
    anchors = "let V=v===-1?N.layout.width:Math.max(v,Ve);U=g>=We?g:Ge(N.layout.height);"
    assert drawn_once(anchors + DRAWN) is not None
    assert drawn_once(DRAWN) is None  # not the component's code around it
    assert drawn_once(anchors + DRAWN + DRAWN) is None  # twice: not the code it was made for
    assert not is_component("index.html") and is_component("PlotlyChart.D9Z0_fxz.js")
