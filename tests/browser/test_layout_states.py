"""The layout checker over every page state a class sees: each page's defaults, every preset and
every bundled lesson step, at 1280×720 and 1920×1080 in lecture mode and at 390×844, with the
checks of tests/browser/test_layout_checker.py (no two text boxes of a figure overlap, no text
cut by its figure, no tick label over a heat map's cells, lecture tick labels ≥ 14 px).

The real page is opened once per page and viewport (the `page_probe` the checker shares); every
other state's figures are the scene's views, styled as the page styles them and drawn at the
width and with the template the real page gave the same view (tests/support/bare_figures.py).
Before trusting that, each page's defaults drawn that way must read the same text boxes as the
real page (to 2 px), so a change in how the app draws figures fails here, not silently.
"""

from __future__ import annotations

import itertools
import json

import pytest

from attnviz.topics.registry import scene_urls
from tests.support import drawn_cache
from tests.support.bare_figures import (
    CODE,
    SESSION,
    SPECS,
    STATES_SEEN,
    digest,
    draw,
    drawn_widths,
    engine,
    job_of,
    page_html,
    page_states,
    plain_title,
    view_specs,
    view_summaries,
)
from tests.support.figure_text import clipped, collisions, over_maps, small_ticks

LECTURE = "?lecture=true&contrast=true"
VIEWS = (
    ({"width": 1280, "height": 720}, LECTURE),
    ({"width": 1920, "height": 1080}, LECTURE),
    ({"width": 390, "height": 844}, ""),
)
LEAST_LECTURE_TICK = 14  # px
# (page, viewport width) -> what is not fixed yet (strict: a fix must remove its entry)
KNOWN: dict[tuple[str, int], str] = {}


def findings(figure: dict, lecture: bool) -> list[str]:
    """What the layout checker reports in one drawn figure."""
    found = collisions(figure) + [f"cut: {c}" for c in clipped(figure)] + over_maps(figure)
    return found + (small_ticks(figure, LEAST_LECTURE_TICK) if lecture else [])


@pytest.fixture(scope="session")
def drawn_states(page_probe, browser, tmp_path_factory, worker_id) -> dict:
    """{(page, width): {"found": [finding…], "states": {label…}, "figures": n, "bare": {title:
    the defaults' figure as drawn here}, "aspect kept": n}} for every page state, drawn outside
    the app (each distinct figure and width once)."""
    html = page_html(tmp_path_factory.mktemp("bare"))
    jobs, who, widths_of = {}, [], {}  # jobs: job_of(...) -> its place in the batch
    for url, label, params in page_states():
        views = {lecture: view_summaries(url, params, lecture) for lecture in (True, False)}
        for vp, query in VIEWS:
            real = page_probe(url, vp, query)["text"]
            if (url, vp["width"]) not in widths_of:  # the defaults come first
                widths_of[url, vp["width"]] = drawn_widths(views[bool(query)], real)
            widths = widths_of[url, vp["width"]]
            for name, about in views[bool(query)].items():
                if name in widths:
                    job = job_of(about, real["template"], widths[name])
                    place = jobs.setdefault(job, len(jobs))
                    who.append((url, vp["width"], label, name, bool(query), about["aspect"], place))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(html.as_uri())
    page.evaluate("document.fonts.load('16px \"Source Sans\"')")
    drawn = list(draw(page, list(jobs), keep=True))  # or read: tests/drawn/
    drawn_cache.record(engine(page), SESSION.figures)  # when asked to (ATTNVIZ_RECORD_DRAWN)
    drawn_cache.record_states(CODE, STATES_SEEN)
    base = tmp_path_factory.getbasetemp()
    drawn_cache.note_drawn(base if worker_id == "master" else base.parent, SESSION.live)
    out: dict = {}
    for url, width, label, name, lecture, aspect, job in who:
        figure = drawn[job]
        entry = out.setdefault((url, width), {"found": [], "states": set(), "figures": 0})
        entry["states"].add(label)
        entry["figures"] += 1
        entry["found"] += [
            f"{label}, {name} {figure['title']!r}: {f}" for f in findings(figure, lecture)
        ]
        if label == "defaults" and aspect:
            entry["aspect kept"] = entry.get("aspect kept", 0) + 1
        elif label == "defaults":
            entry.setdefault("bare", {})[plain_title(figure["title"])] = figure
    page.close()
    return out


SAMPLE = 24  # kept drawings drawn again each run (one batch)
STATE_SAMPLE = 4  # kept page states made again each run, spread over the pages


@pytest.fixture(scope="session")
def states_made_again(drawn_states) -> dict[str, dict]:
    """{state key: {view name: its figure}} for a sample of the page states kept in
    tests/drawn/states.json.gz, made again here by their scenes (their figures then drawn
    from these)."""
    kept = drawn_cache.kept_states(CODE)
    keys = sorted(kept)[:: max(1, len(kept) // STATE_SAMPLE)][:STATE_SAMPLE]
    made = {key: view_specs(*json.loads(key)) for key in keys}
    for specs in made.values():
        SPECS.update({digest(spec): spec for spec in specs.values()})
    return made


@pytest.mark.browser
def test_kept_page_states_are_what_this_code_makes(states_made_again):
    """Oracle for tests/drawn/states.json.gz: a sample of the page states kept there, made again
    here by their scenes, gives the same figures (each view's JSON digest)."""
    if not states_made_again:
        pytest.skip("no page state was read from tests/drawn/ (every one was made here)")
    kept = drawn_cache.kept_states(CODE)
    for key, specs in states_made_again.items():
        made = {name: digest(spec) for name, spec in specs.items()}
        assert made == {name: about["digest"] for name, about in kept[key].items()}, key


@pytest.mark.browser
def test_kept_drawings_are_what_this_chromium_draws(states_made_again, browser, tmp_path_factory):
    """Oracle for tests/drawn/figures.json.gz: a sample of the drawings read from it this
    session (of the figures made again above, else of any), drawn again here, must read the
    same texts, boxes and heat maps (to 0.01 px)."""
    read = [(key, job) for key, job in SESSION.read if job[0] in SPECS] or SESSION.read
    if not read:
        pytest.skip("no drawing was read from tests/drawn/ (every figure was drawn here)")
    sample = read[:: max(1, len(read) // SAMPLE)][:SAMPLE]
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(page_html(tmp_path_factory.mktemp("check")).as_uri())
    page.evaluate("document.fonts.load('16px \"Source Sans\"')")
    again = list(draw(page, [job for _, job in sample]))  # drawn here
    page.close()
    for (key, _), live in zip(sample, again, strict=True):
        kept = SESSION.figures[key]
        assert [t["text"] for t in kept["texts"]] == [t["text"] for t in live["texts"]], key
        assert flat(kept) == pytest.approx(flat(live), abs=0.01), (key, kept["title"])


def flat(figure: dict) -> list[float]:
    """Every coordinate of a drawn figure: its texts' corners and sizes, its maps, its box."""
    out = [v for t in figure["texts"] for corner in t["corners"] for v in corner]
    out += [t["size"] for t in figure["texts"]]
    return out + [v for m in figure["maps"] for v in m] + list(figure["box"].values())


def cases(known: dict | None = None) -> list:
    known = known or {}
    return [
        pytest.param(
            (url, vp, query),
            id=f"{url}-{vp['width']}x{vp['height']}",
            marks=[pytest.mark.xfail(strict=True, reason=known[(url, vp["width"])])]
            if (url, vp["width"]) in known
            else [],
        )
        for url, (vp, query) in itertools.product(scene_urls(), VIEWS)
    ]


@pytest.mark.browser
@pytest.mark.parametrize("case", cases())
def test_figures_drawn_outside_the_app_match_the_page(
    case, drawn_states, page_probe, browser, tmp_path_factory
):
    """The defaults drawn outside the app read the same texts as the real page, each placed
    where the real page places it (to 2 px, measured from the figure's first text)."""
    url, vp, query = case
    bare = drawn_states[(url, vp["width"])].get("bare", {})
    probed = page_probe(url, vp, query)
    if not matches(bare, probed):  # once more in a new tab: a loaded machine can lay out late
        probed = page_probe(url, vp, query, again=True)
        # the widths the bare figures were drawn at came from the first look, which may have
        # been the late one: drawn again at this look's widths
        bare = bare_defaults(url, bool(query), probed["text"], browser, tmp_path_factory) or bare
    compared = 0
    for real in probed["text"]["figures"]:
        mine = bare.get(plain_title(real["title"]))
        if mine is None:
            continue  # a figure no scene view draws (a training panel's loss curve)
        assert [t["text"] for t in mine["texts"]] == [t["text"] for t in real["texts"]]
        assert placed(mine) == pytest.approx(placed(real), abs=2), real["title"]
        compared += 1
    kept = drawn_states[(url, vp["width"])].get("aspect kept", 0)
    assert compared or kept, "no figure of the page was drawn outside the app"


def bare_defaults(url: str, lecture: bool, real: dict, browser, tmp_path_factory) -> dict:
    """{title: figure} of the page's defaults drawn outside the app at the widths, and with the
    template, of the real page's figures `real` (one page probe's text)."""
    views = view_summaries(url, {}, lecture)
    widths = drawn_widths(views, real)
    jobs = [
        job_of(about, real["template"], widths[name])
        for name, about in views.items()
        if name in widths and not about["aspect"]
    ]
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(page_html(tmp_path_factory.mktemp("again")).as_uri())
    page.evaluate("document.fonts.load('16px \"Source Sans\"')")
    drawn = {plain_title(figure["title"]): figure for figure in draw(page, jobs, keep=True)}
    page.close()
    return drawn


def matches(bare: dict, probed: dict) -> bool:
    """Whether every figure drawn outside the app places its texts as the page did (to 2 px)."""
    for real in probed["text"]["figures"]:
        mine = bare.get(plain_title(real["title"]))
        if mine is None:
            continue
        if [t["text"] for t in mine["texts"]] != [t["text"] for t in real["texts"]]:
            return False
        if len(placed(mine)) != len(placed(real)) or any(
            abs(a - b) > 2 for a, b in zip(placed(mine), placed(real), strict=True)
        ):
            return False
    return True


def placed(figure: dict) -> list[float]:
    """Each text's first corner relative to the figure's first text, flattened."""
    x0, y0 = figure["texts"][0]["corners"][0]
    return [v for t in figure["texts"] for x, y in t["corners"] for v in (x - x0, y - y0)]


@pytest.mark.browser
@pytest.mark.parametrize("case", cases(KNOWN))
def test_no_preset_or_lesson_step_breaks_a_figure(case, drawn_states):
    url, vp, _ = case
    entry = drawn_states[(url, vp["width"])]
    assert entry["figures"] >= len(entry["states"]), "the states were not drawn"
    assert not entry["found"], (
        f"{len(entry['found'])} findings over {len(entry['states'])} states:\n  "
        + "\n  ".join(entry["found"][:12])
    )
