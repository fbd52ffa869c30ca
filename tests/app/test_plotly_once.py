"""attnviz.ui.plotly_once: Streamlit's chart component, changed so that a new chart is drawn
once (what that draws is counted in Chromium: tests/browser/test_drawn_once.py), and the further
changes serve.py makes (attnviz.ui.plotly_in_view, attnviz.ui.plotly_margins)."""

from __future__ import annotations

from pathlib import Path

import streamlit

from attnviz.ui import plotly_in_view, plotly_margins
from attnviz.ui.plotly_once import DRAWN, HELD, drawn_once, is_component
from attnviz.ui.serve import chart_changes

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


def test_the_installed_component_can_hold_a_chart_until_it_is_near_the_screen(monkeypatch):
    """attnviz.ui.plotly_in_view changes plotly_once's code (a new Streamlit fails here too)."""
    (path,) = [p for p in STATIC.iterdir() if is_component(p.name)]
    once = drawn_once(path.read_text(encoding="utf-8"))
    code = plotly_in_view.in_view(once)
    assert code is not None, "not the code attnviz.ui.plotly_in_view changes"
    assert code.count("IntersectionObserver(") == 1 and plotly_in_view.in_view(code) is None
    monkeypatch.setenv(plotly_in_view.EVERY, "1")  # a test server: every chart at once
    assert not plotly_in_view.wanted()
    monkeypatch.setenv(plotly_in_view.EVERY, "0")
    assert plotly_in_view.wanted()


def test_the_installed_component_can_start_a_chart_from_its_last_margins():
    """attnviz.ui.plotly_margins appends its script where the bundle hands its Plotly to the
    page (a new Streamlit fails here too), after the other changes, once."""
    (path,) = [p for p in STATIC.iterdir() if is_component(p.name)]
    source = path.read_text(encoding="utf-8")
    code = chart_changes(near=True)(drawn_once(source))
    assert code.count("IntersectionObserver(") == 1 and code.count("P.$margins = true") == 1
    assert plotly_margins.remembered(code) is None  # not twice
    assert plotly_margins.remembered("export{Je as PlotlyChart};") is None  # no Plotly handed
