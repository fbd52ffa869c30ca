"""Figures of any page state drawn in Chromium without the app: the scene's views, styled as the
page styles them (lecture mode, high contrast), given the width and the Plotly template the app's
frontend gave the same view on the real page, and drawn with plotly.js in the app's font.

Opening the real page for every preset and every lesson step at three viewports would cost
minutes; drawing the same figures here costs tens of milliseconds each. What the frontend adds
to a figure was read off the real page (the `el.layout` it hands to Plotly): the template (its
theme), the container's width and a bold title; given those, the text boxes drawn here match the
real page's to the pixel (tests/browser/test_layout_states.py checks that on every page's
default state before it trusts the rest).

A state's views are summarised by their JSON's digest (`view_summaries`) and a drawing is asked
for by digests (`job_of`); both the summaries and the drawings are kept in tests/drawn/
(tests/support/drawn_cache.py), so a run whose code and browser did not change makes and draws
only what the oracles sample.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import plotly
import plotly.io as pio
import streamlit  # registers Streamlit's Plotly template, as `st.plotly_chart` sends it

from attnviz.lessons.loader import bundled_lessons
from attnviz.topics.registry import page_tables, scene
from attnviz.ui.common.figures import styled
from attnviz.ui.common.settings import GlobalSettings
from tests.support import drawn_cache
from tests.support.drawn_cache import digest
from tests.support.figure_text import FIGURE_TEXT, read_figure_text

CODE = drawn_cache.code_digest()  # what decides the figures (kept summaries are for it)
LECTURE_LOOK = GlobalSettings("cpu", 0, lecture=True, export_format="png", high_contrast=True)
BATCH = 24  # figures drawn per round trip to the page

DRAW = """async (batch) => {
  const box = document.getElementById('box');
  box.replaceChildren();
  for (const [fig, width] of batch) {  // one after another: ~20 % faster than all at once
    const div = document.createElement('div');
    box.appendChild(div);
    const layout = Object.assign({}, fig.layout, {width});
    if (layout.title && layout.title.text)  // the frontend sets titles in bold
      layout.title = Object.assign({}, layout.title, {text: '<b>' + layout.title.text + '</b>'});
    await Plotly.newPlot(div, fig.data, layout, {displayModeBar: false, staticPlot: true});
  }
}"""


def page_states() -> list[tuple[str, str, dict]]:
    """[(page url, label, parameters)]: every page's defaults, then each preset and each bundled
    lesson step's state not already listed, page by page."""
    states: list[tuple[str, str, dict]] = []
    for url, table in page_tables().items():
        states.append((url, "defaults", {}))
        states += [(url, f"preset {name!r}", dict(table.presets[name])) for name in table.presets]
    for lesson in bundled_lessons().values():
        for number, step in enumerate(lesson.steps, 1):
            params = dict(step.params)
            if step.page in page_tables() and (step.page, params) not in [
                (url, p) for url, _, p in states
            ]:
                states.append((step.page, f"{lesson.slug} step {number}", params))
    order = list(page_tables())
    return sorted(states, key=lambda state: order.index(state[0]))  # a page's states together


def plain_title(text: str | None) -> str:
    """A title without its markup (what to match a drawn figure by)."""
    return re.sub(r"<[^>]+>", "", (text or "").replace("<br>", " ")).strip()


def view_specs(url: str, params: dict, lecture: bool) -> dict[str, dict]:
    """{view name: the figure as JSON} of the page at `params`, styled as the page styles it
    (the scene runs once per page and parameters: lecture mode changes the views only)."""
    out, spans = {}, scene(url).span  # a view's title runs across its place, as on the page
    for name, fig in _views(url, params, lecture).items():
        fig = styled(fig, LECTURE_LOOK, span=spans(name)) if lecture else fig  # a new figure
        out[name] = json.loads(pio.to_json(fig, validate=False))
    return out


SPECS: dict[str, dict] = {}  # the session's figures by digest (made here: drawn on demand)
WHERE: dict[str, tuple[str, dict, bool]] = {}  # digest -> the state (url, params, lecture)
TEMPLATES: dict[str, dict] = {}  # the real pages' templates by digest
STATES_SEEN: dict[str, dict] = {}  # the session's page states' summaries, for a recording


def view_summaries(url: str, params: dict, lecture: bool) -> dict[str, dict]:
    """{view name: {"digest", "title" (plain), "aspect" (kept_aspect)}} of the page at `params`:
    kept in tests/drawn/states.json.gz while the code is the same (drawn_cache.code_digest),
    else made here with view_specs (each figure then kept in SPECS for drawing)."""
    key = json.dumps([url, params, lecture], sort_keys=True, default=str)
    found = drawn_cache.kept_states(CODE).get(key)
    if found is None:
        found = {}
        for name, spec in view_specs(url, params, lecture).items():
            mark = digest(spec)
            SPECS[mark] = spec
            title = plain_title((spec["layout"].get("title") or {}).get("text"))
            found[name] = {"digest": mark, "title": title, "aspect": kept_aspect(spec)}
    for about in found.values():
        WHERE.setdefault(about["digest"], (url, params, lecture))
    STATES_SEEN[key] = found
    return found


def spec_of(mark: str) -> dict:
    """The figure whose digest is `mark`, made again from its page state if this session has
    not made it yet (its state's summary was kept)."""
    if mark not in SPECS:
        url, params, lecture = WHERE[mark]
        for spec in view_specs(url, params, lecture).values():
            SPECS[digest(spec)] = spec
    return SPECS[mark]


def kept_aspect(spec: dict) -> bool:
    """Whether a figure keeps its axes' aspect (scaleanchor: the key plane, the patch grid). The
    real page draws such a figure first at another width and keeps that draw's axis ranges after
    the resize, so its ticks are not where a first draw at the final width puts them; the
    comparison with the real page leaves it out (the layout checks still cover it)."""
    return any(
        isinstance(axis, dict) and axis.get("scaleanchor")
        for key, axis in spec["layout"].items()
        if key.startswith(("xaxis", "yaxis"))
    )


class _Watched(dict):
    """A scene's values that note whether lecture mode or contrast was read."""

    MODES = ("lecture", "contrast")

    def __init__(self, values: dict) -> None:
        super().__init__(values)
        self.read_mode = False

    def __getitem__(self, key):
        self.read_mode |= key in self.MODES
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read_mode |= key in self.MODES
        return super().get(key, default)


_VIEWS: dict = {}  # the last state's views, unstyled, when they read no mode: {key: views}


def _views(url: str, params: dict, lecture: bool) -> dict:
    """The scene's views at `params` in lecture mode or not. Most scenes' views do not read the
    mode (styling is the page's): the views made for one mode serve the other (about 9 s of the
    layout checker's 40 s of scene work); a scene's views that read it are made for each."""
    key = (url, json.dumps(params, sort_keys=True, default=str))
    if key in _VIEWS:
        return _VIEWS[key]
    the_scene = scene(url)
    values = _Watched(the_scene.values(params, lecture=lecture, contrast=lecture))
    views = the_scene.views(_result(url, params), values)
    _VIEWS.clear()
    if not values.read_mode:
        _VIEWS[key] = views
    return views


_RESULTS: dict = {}  # one page's scene results by config: its states share a run (issue 52)


def _result(url: str, params: dict):
    """The scene's result at these parameters (no scene reads lecture mode or contrast). States
    whose settings differ only in what is shown share the run of their config (the language
    model's 18 states make 6 runs, the interventions' 13 make 3); kept for one page at a time
    (page_states lists a page's states together)."""
    the_scene = scene(url)
    config = the_scene.config(the_scene.values(params))
    key = (url, _config_key(config))
    if key not in _RESULTS:
        if any(known[0] != url for known in _RESULTS):
            _RESULTS.clear()
        _RESULTS[key] = the_scene.run(config)
    return _RESULTS[key]


def _config_key(config) -> object:
    """A config as a dictionary key: itself when it hashes, else its repr."""
    try:
        hash(config)
    except TypeError:
        return repr(config)
    return config


def drawn_widths(views: dict[str, dict], drawn: dict) -> dict[str, float]:
    """{view name: its width on the real page}, for the views (view_summaries) the real page
    drew (by title); views in folded sections are not drawn there and are left out."""
    widths = {
        plain_title(f["spec"]): f["box"]["right"] - f["box"]["left"] for f in drawn["figures"]
    }
    return {
        name: widths[about["title"]] for name, about in views.items() if about["title"] in widths
    }


def spec_job(spec: dict, width: float) -> tuple[str, str, float]:
    """A figure given whole (its template in its layout, if any) as a drawing to make."""
    layout = dict(spec["layout"])
    template = layout.pop("template", None)
    spec = spec | {"layout": layout}
    mark = digest(spec)
    SPECS[mark] = spec
    return job_of({"digest": mark}, template, width)


def job_of(about: dict, template: dict | None, width: float) -> tuple[str, str, float]:
    """A drawing to make: (the figure's digest, its template's digest, the width)."""
    mark = digest(template)
    TEMPLATES[mark] = template
    return about["digest"], mark, width


def assets() -> tuple[Path, Path]:
    """The app's font (Streamlit's) and plotly.js (the copy plotly.py bundles)."""
    media = Path(streamlit.__file__).parent / "static" / "static" / "media"
    font = next(media.glob("SourceSansVF-Upright*.woff2"))
    return font, Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def page_html(folder: Path) -> Path:
    """A page with plotly.js and the app's font (`assets`)."""
    font, script = assets()
    path = folder / "bare_figures.html"
    path.write_text(
        "<html><head><style>@font-face {font-family: 'Source Sans'; "
        f"src: url('{font.as_uri()}');}} body {{margin: 0}}</style>"
        f"<script src='{script.as_uri()}'></script></head><body><div id='box'></div></body></html>"
    )
    return path


class Drawn:
    """The session's drawings outside the app: {job key: figure text} drawn or read from
    tests/drawn/ (tests/support/drawn_cache.py), how many were drawn live, and the kept ones
    read (each with its job) that a test draws again to compare."""

    def __init__(self) -> None:
        self.figures: dict[str, dict] = {}
        self.live = 0
        self.read: list[tuple[str, list]] = []


SESSION = Drawn()


def engine(page) -> str:
    """What decides a drawing here besides the figure (tests/support/drawn_cache.py)."""
    return _engine(page.context.browser.version)


@functools.cache
def _engine(browser: str) -> str:
    font, script = assets()
    parts = (script.read_text(), font.read_bytes().hex(), DRAW, FIGURE_TEXT)
    return drawn_cache.drawing_engine(browser, *parts)


def draw(page, jobs: Iterable[tuple], keep: bool = False) -> Iterator[dict]:
    """Each job (job_of, or a figure and its width) drawn on `page` (opened at page_html), its
    text as read_figure_text reads a figure of the app with coordinates from the figure's top
    left corner, in order. With `keep` (the layout states' figures): read from the kept
    drawings where they hold it, and noted in SESSION (for a recording and the oracle)."""
    jobs = [job if len(job) == 3 else spec_job(*job) for job in jobs]
    kept = drawn_cache.kept(engine(page)) if keep else {}
    keys = [digest(list(job)) for job in jobs]
    missing = [i for i, key in enumerate(keys) if key not in kept]
    made = [_made(*jobs[i]) for i in missing]
    fresh = dict(zip(missing, _drawn(page, made), strict=True))
    SESSION.live += len(missing) if keep else 0
    for i, key in enumerate(keys):
        if i in fresh:
            figure = fresh[i]
        else:
            figure = kept[key]
            SESSION.read.append((key, jobs[i]))
        if keep:
            SESSION.figures[key] = figure
        yield figure


def _made(mark: str, template: str, width: float) -> tuple[dict, float]:
    """A job as the figure to draw and its width, the real page's template in the figure."""
    spec = json.loads(json.dumps(spec_of(mark)))  # a copy: the template goes into it
    if TEMPLATES[template] is not None:
        spec["layout"]["template"] = TEMPLATES[template]
    return spec, width


def _drawn(page, jobs: list) -> Iterator[dict]:
    """Each job drawn in Chromium, BATCH at a time, its coordinates relative to its figure."""
    for start in range(0, len(jobs), BATCH):
        batch = jobs[start : start + BATCH]
        page.evaluate(DRAW, batch)
        figures = read_figure_text(page)["figures"]
        assert len(figures) == len(batch), "a figure was not drawn"
        yield from (drawn_cache.relative(figure) for figure in figures)
