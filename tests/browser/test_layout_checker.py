"""The layout checker: every page of the navigation in Chromium, at 1280×720 and 1920×1080 in
lecture mode (a projector) and at 390×844 (a student's phone): inside each drawn figure no two
text boxes overlap (titles, axis titles, tick labels, colour bars, legends, annotations: Plotly's
SVG text boxes, rotated labels compared as rotated rectangles), no text is cut by the figure's
edge and no tick label lies over a heat map's cells; in lecture mode no tick label is set below
14 px; on the phone neither the page nor a display formula or code block inside it scrolls
sideways. The pages come from the registry, so a new page is checked without new tests.
(tests/browser/test_lecture_mode.py checks the page around the figures: buttons, headings, the
first screen.)"""

from __future__ import annotations

import itertools
import math

import pytest

from tests.support.figure_text import clipped, collisions, over_maps, overlap, small_ticks
from tests.support.pages import app_pages

LECTURE = "?lecture=true&contrast=true"
VIEWS = (
    ({"width": 1280, "height": 720}, LECTURE),
    ({"width": 1920, "height": 1080}, LECTURE),
    ({"width": 390, "height": 844}, ""),
)
# Findings not fixed yet, each said as (page, viewport width, check): the check may fail there
# (not strict: the one entry is at the edge, passing in some runs and failing in others).
KNOWN: dict[tuple[str, int, str], str] = {
    ("soft-select", 1280, "overlap"): "the key plane's two-line lecture title, centred in its "
    "margin, touches the top y tick label '2' by about a pixel in some runs (issue 25)",
}


def cases(check: str, keep=lambda query: True) -> list:
    out = []
    for (_, _, url), (vp, query) in itertools.product(app_pages(), VIEWS):
        if not keep(query):
            continue
        reason = KNOWN.get((url, vp["width"], check))
        marks = [pytest.mark.xfail(strict=False, reason=reason)] if reason else []
        out.append(
            pytest.param((url, vp, query), id=f"{url}-{vp['width']}x{vp['height']}", marks=marks)
        )
    return out


LEAST_LECTURE_TICK = 14  # px: read from the back of a hall


@pytest.fixture
def drawn(page_probe, request):
    """The text inside the figures of page `request.param` = (url, viewport, query)."""
    return page_probe(*request.param)["text"]


def findings(drawn: dict, check) -> dict[str, list[str]]:
    """{figure title: what `check` finds in it}, for the figures where it finds something."""
    found = {f["title"]: check(f) for f in drawn["figures"]}
    return {title: items for title, items in found.items() if items}


def report(found: dict[str, list[str]], most: int = 4) -> str:
    """Each figure's first `most` findings and how many more there are."""
    lines = []
    for title, items in found.items():
        more = f"\n    … and {len(items) - most} more" if len(items) > most else ""
        lines.append(f"  {title!r}:\n    " + "\n    ".join(items[:most]) + more)
    return "\n".join(lines)


@pytest.mark.browser
@pytest.mark.parametrize("drawn", cases("overlap"), indirect=True)
def test_no_two_texts_of_a_figure_overlap(drawn):
    found = findings(drawn, collisions)
    assert not found, "text that overlaps other text in a figure:\n" + report(found)


@pytest.mark.browser
@pytest.mark.parametrize("drawn", cases("cut"), indirect=True)
def test_no_text_is_cut_by_its_figure(drawn):
    found = findings(drawn, clipped)
    assert not found, "text that reaches past its figure's edge:\n" + report(found)


@pytest.mark.browser
@pytest.mark.parametrize("drawn", cases("maps"), indirect=True)
def test_no_tick_label_lies_over_a_heat_maps_cells(drawn):
    found = findings(drawn, over_maps)
    assert not found, "tick labels drawn over a heat map:\n" + report(found)


@pytest.mark.browser
@pytest.mark.parametrize("drawn", cases("ticks", lambda q: q == LECTURE), indirect=True)
def test_tick_labels_are_large_enough_in_lecture_mode(drawn):
    found = findings(drawn, lambda figure: small_ticks(figure, LEAST_LECTURE_TICK))
    assert not found, f"tick labels under {LEAST_LECTURE_TICK} px in lecture mode:\n" + report(
        found
    )


@pytest.mark.browser
@pytest.mark.parametrize("drawn", cases("scroll", lambda q: q == ""), indirect=True)
def test_the_phone_never_scrolls_sideways(drawn):
    assert drawn["scrollWidth"] <= drawn["width"], (
        f"the page is {drawn['scrollWidth']} px wide on a {drawn['width']} px phone"
    )


@pytest.mark.browser
@pytest.mark.parametrize("drawn", cases("wide", lambda q: q == ""), indirect=True)
def test_no_formula_or_code_scrolls_sideways_on_the_phone(drawn):
    """A display formula or a code block wider than the phone scrolls inside its own box (the page
    itself does not): it must wrap or shrink instead (static/app.css)."""
    assert not drawn["wide"], "\n".join(
        f"{w['text']!r}: {w['scroll']} px in a box of {w['client']} px" for w in drawn["wide"]
    )


def square(cx: float, cy: float, half: float, degrees: float) -> list:
    """The corners of a square centred at (cx, cy), turned by `degrees`."""
    a = math.radians(degrees)
    offsets = [(-half, -half), (half, -half), (half, half), (-half, half)]
    return [
        (cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a))
        for x, y in offsets
    ]


def test_overlap_compares_rotated_boxes_exactly():
    """Oracle: squares of half-side 10 turned 45° are diamonds |x| + |y| ≤ 10·√2. With centres
    (0, 0) and (d, d) they reach each other along the diagonal only when d < 10·√2 ≈ 14.1, while
    their upright bounding boxes (±14.1 px) overlap for any d < 28.3: at d = 20 they do not
    touch, at d = 12 they overlap (by 3 px along the diagonal). Upright, 19 px apart they
    overlap by 1 px (within the slack), 18 px apart by 2 px."""
    assert not overlap(square(0, 0, 10, 45), square(20, 20, 10, 45))
    assert overlap(square(0, 0, 10, 45), square(12, 12, 10, 45))
    assert not overlap(square(0, 0, 10, 0), square(19, 0, 10, 0))
    assert overlap(square(0, 0, 10, 0), square(18, 0, 10, 0))
