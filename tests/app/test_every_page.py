"""Every page in app.py's navigation, driven with AppTest like a person would.

Pages come from the page table (attnviz.topics.registry), so a new page is covered without
touching this file; each check also takes a page registered at run time (a plug-in, or
tests/app/test_adding_a_page.py's throwaway page).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attnviz.figures.base import BASE_FONT
from attnviz.topics.registry import all_pages, has_scene, scene
from attnviz.topics.views import TRAINING_STAGE
from tests.support.apptest import (
    keyed_widgets,
    no_exception,
    open_page,
    other_values,
    plotly_array,
    set_widget,
    shown,
)
from tests.support.pages import ROOT, app_pages

PAGES = app_pages()
PAGE_IDS = [url for _, _, url in PAGES]


def url_of(path: str) -> str:
    """The url of the page whose script is `path` (any page in the table now)."""
    return next(p.url for p in all_pages() if p.script == path)


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=PAGE_IDS)
def test_page_opens_cleanly(path):
    at = open_page(path)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert at.title or at.get("page_link"), "a page shows a title"
    if has_scene(url_of(path)):
        main_figure_is_summarised(at, url_of(path))
        export_box_is_built_only_when_open(at, url_of(path))


def export_box_is_built_only_when_open(at, url: str) -> None:
    """The "Copy as Python" box holds no code while folded (a browser would still highlight it
    on every load); opened, it shows the notebook code for this page's scene."""
    assert not [c for c in at.code if "av.scene(" in c.value], f"{url}: code built while folded"
    at.session_state["view_export"] = True
    at.run()
    code = [c.value for c in at.code if "av.scene(" in c.value]
    assert len(code) == 1 and f"av.scene(\n    {url!r}," in code[0], (url, code)


def main_figure_is_summarised(at, url: str) -> None:
    """The text right under the page's main figure names its strongest cell (bar, curve peak),
    found here from the figure's data, as plain text: labels unescaped, never HTML."""
    charts = list(at.get("plotly_chart"))
    names = [json.loads(c.proto.config)["toImageButtonOptions"]["filename"] for c in charts]
    main = scene(url).main_view
    assert main in names, f"{url}: the main view {main!r} is not drawn ({names})"
    fig = json.loads(charts[names.index(main)].proto.spec)
    texts = [t.value for t in at.text]
    assert len(texts) == 1, f"{url}: one summary expected, got {texts}"
    line = texts[0]
    assert 0 < len(line) <= 200 and "&lt;" not in line and "<br>" not in line
    value, labels = strongest(fig)
    for part in labels:
        assert part in line, f"{url}: {part!r} not in the summary {line!r}"
    numbers = (f"{value:.2f}", f"{value:.3f}", f"{value:.3g}")
    assert any(n in line for n in numbers), f"{url}: {value} not in the summary {line!r}"


def strongest(fig: dict) -> tuple[float, list[str]]:
    """The largest cell's (bar's, curve point's) value, and its labels (or row and column)."""
    traces = [t for t in fig["data"] if t.get("hoverinfo") != "skip"]
    kinds = {t["type"] for t in traces}
    kind = "heatmap" if "heatmap" in kinds else "bar" if "bar" in kinds else "scatter"
    best = None  # (value, parts)
    for t in traces:
        if t["type"] != kind or (kind == "scatter" and "lines" not in t.get("mode", "lines")):
            continue
        z = plotly_array(t["z" if kind == "heatmap" else "y"]).astype(float)
        z = np.atleast_2d(as_the_colour_bar_reads(t, z) if kind == "heatmap" else z)
        r, c = np.unravel_index(np.nanargmax(z), z.shape)
        if best is not None and z[r, c] <= best[0]:
            continue
        if kind == "scatter":
            parts = []
        elif "x" in t and "y" in t and kind == "heatmap":
            parts = [cut(t["y"][r]), cut(t["x"][c])]
        elif kind == "heatmap":
            parts = [f"row {r}, column {c}"]
        else:
            parts = [cut(t["x"][c])]
        best = (float(z[r, c]), parts)
    return best


def as_the_colour_bar_reads(trace: dict, z: np.ndarray) -> np.ndarray:
    """Cells in the units a person reads off the colour bar: where its ticks are labelled with
    numbers other than their positions (cells sent as byte codes), the line through the ticks."""
    bar = trace.get("colorbar") or {}
    at, text = bar.get("tickvals"), bar.get("ticktext")
    if not at or not text or len(at) < 2:
        return z
    at, read = np.asarray(at, float), np.asarray([float(label) for label in text])
    return read[0] + (z - at[0]) * (read[-1] - read[0]) / (at[-1] - at[0])


def cut(label) -> str:
    """A label's first characters as a person reads them (entities unescaped)."""
    return html.unescape(re.sub(r"<br>", " ", str(label))).replace("\u200b", "")[:20]


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=PAGE_IDS)
def test_main_widget_changes_what_is_shown(path):
    at = open_page(path)
    widgets = [
        kw
        for kw in keyed_widgets(at, ("slider", "selectbox"))
        if other_values(getattr(at, kw[0])(key=kw[1]))
    ]
    if not widgets:
        assert path == "pages/home.py", f"{path} has no keyed slider or selectbox in its main area"
        return
    kind, key = widgets[0]
    before = shown(at)
    set_widget(at, kind, key, other_values(getattr(at, kind)(key=key))[0])
    at.run()
    no_exception(at)
    assert shown(at) != before, f"changing {kind} {key!r} changed nothing on {path}"


def open_every_lazy_expander(at) -> None:
    """Open the expanders that build their body only while open (they have a key)."""
    keys = [e.key for e in at.main.expander if e.key and not e.key.startswith("$$")]
    for key in keys:
        at.session_state[key] = True
    if keys:
        at.run()
        no_exception(at)


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=PAGE_IDS)
def test_every_widget_at_its_extremes(path):
    at = open_page(path)
    open_every_lazy_expander(at)
    for kind, key in keyed_widgets(at):
        try:
            widget = getattr(at, kind)(key=key)
        except KeyError:
            continue  # hidden by an earlier change
        if widget.disabled:
            continue
        for value in other_values(widget):
            set_widget(at, kind, key, value)
            at.run()
            no_exception(at)


def test_home_links_every_page():
    at = open_page("pages/home.py")
    linked = [(link.proto.page, link.proto.label) for link in at.get("page_link")]
    others = [(Path(p).stem, title) for p, title, _ in PAGES if p != "pages/home.py"]
    assert linked[-len(others) :] == others  # after the ways in (tests/app/test_home.py)


LEAST_CELL_PX = 14  # a matrix's numbers in lecture mode at a page's defaults, as its ticks


def open_in_lecture_mode(path: str) -> AppTest:
    """Open `path` as from a link with lecture mode and high contrast on (the sidebar reads the
    link on the first run; the page then runs with those settings)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"lecture": "true", "contrast": "true"})
    at.run()
    if path == "pages/home.py":  # the default page: AppTest's switch to it drops app.py's part
        return at
    return at.switch_page(path).run()


THIRD_LINE = 40  # characters at most in a lecture title's line over a third of the page


def named_figures(at: AppTest) -> list[tuple[dict, str]]:
    """Every Plotly figure on the page as a dict, with its view's name (its download's)."""
    return [
        (json.loads(el.proto.spec), json.loads(el.proto.config)["toImageButtonOptions"]["filename"])
        for el in at.get("plotly_chart")
    ]


def title_span(path: str, name: str) -> float | None:
    """The share of the page a view's title may run across: its scene's View.span, a training
    run's curves the stage's (attnviz.ui.training.run_view)."""
    url = url_of(path)
    if name.endswith("_curves"):
        return TRAINING_STAGE
    return scene(url).span(name) if has_scene(url) else None


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=PAGE_IDS)
def test_page_in_lecture_mode_with_high_contrast(path):
    at = open_in_lecture_mode(path)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["lecture"] and at.session_state["contrast"]
    assert at.button(key="lecture_exit_button"), "no way back from lecture mode"
    for fig, name in named_figures(at):
        size = fig["layout"].get("font", {}).get("size")
        assert size and size >= round(BASE_FONT * 1.6), f"a figure on {path} has font {size}"
        written = [t for t in fig["data"] if t.get("type") == "heatmap" and t.get("text")]
        for trace in written:  # a projector's back row reads a matrix's numbers too
            cell = (trace.get("textfont") or {}).get("size")
            assert cell >= LEAST_CELL_PX, f"cell numbers of {fig['layout'].get('title')} {cell}"
        title = fig["layout"].get("title", {}).get("text") or ""
        most = int(THIRD_LINE * 3 * (title_span(path, name) or 1 / 3))
        lines = title.split("<br>")
        assert all(len(line) <= most for line in lines), f"an unwrapped title: {title!r}"
    if path != "pages/home.py":
        assert at.get("popover"), f"{path}: the intro is not folded into 'About'"
