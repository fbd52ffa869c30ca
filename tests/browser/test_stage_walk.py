"""Presenter mode's stage, walked over every step of every bundled lesson in Chromium at
1280×720 (and the question steps at 1920×1080), as a lecturer presents it: the first step from
its link, then Next (issue 38). Per step: the step's views, found by name, wholly between the
lesson's text and the bottom of the screen (redrawn to fit, never cut); the narration and the
question whole (nothing clipped); the widgets it asks the presenter to move (`controls`) on
screen; every text of a view at 14 px or more as drawn (a table drawn on a canvas is not
read), every chart's plot area 200 px tall or more and every picture or map 120 px; no empty
band of 300 px or more; before Reveal the question's views veiled and no answer shown. A
training page's views of a run (its curves) are drawn only once the run starts, a live timing's
once Measure is pressed: such a step passes with Start or Measure on the stage and the views it
has before."""

from __future__ import annotations

import contextlib
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from attnviz.lessons.loader import bundled_lessons
from tests.support.browser import assert_no_exception, instrument, page_url, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.walk]  # about 3 min alone: -m walk
LESSONS = bundled_lessons()
PROJECTOR, WIDE = {"width": 1280, "height": 720}, {"width": 1920, "height": 1080}
EMPTY_BAND = 300  # px
LABEL_MIN = 14  # px: the smallest text of a view as the projector shows it (zoom included)
PLOT_MIN = 200  # px: the shortest plot area of a chart as drawn (L8 s9's was squashed flat)
IMAGE_MIN = 120  # px: the shortest picture or map (a plot area drawing an image or a heatmap)
MEASURE = """([names, controls]) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; };
  const clipped = (el) => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowY)
    && el.scrollHeight > el.clientHeight + 1;
  const bar = document.querySelector('.st-key-presenter_bar');
  const text = ['.st-key-lesson_told', '.st-key-lesson_asked']
    .map((s) => document.querySelector(s)).filter(Boolean);
  const texts = (root, out) => {  // elements holding text, inside components' shadow roots too
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) texts(el.shadowRoot, out);
      if ([...el.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())) out.push(el);
    }
    return out;
  };
  const smallest = (view) => {  // [px as the projector shows it, the text] of its smallest text
    const zoom = parseFloat(view.style.zoom || '1');
    let least = null;
    for (const el of texts(view, [])) {
      const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
      if (!r.width || !r.height || cs.visibility === 'hidden' || cs.opacity === '0') continue;
      const px = Math.round(parseFloat(cs.fontSize) * zoom * 10) / 10;
      if (!least || px < least[0]) least = [px, el.textContent.trim().slice(0, 24)];
    }
    return least;
  };
  const views = names.map((n) => {
    const el = document.querySelector('.st-key-view_' + CSS.escape(n));
    if (!el) return null;
    const shown = (g) => {  // a chart a person can see (a stale copy being swapped is not)
      const plot = g.closest('.js-plotly-plot');
      return plot && plot.getBoundingClientRect().height > 0 && plot.checkVisibility();
    };
    const areas = [...el.querySelectorAll('.draglayer > g')].filter(shown).map((g) => {
      const drag = g.querySelector('.nsewdrag');  // each subplot's plot area, and whether it
      // draws a picture
      const id = [...g.classList].find((c) => /^x\\d*y\\d*$/.test(c));
      const svg = g.closest('.main-svg') && g.closest('.main-svg').parentElement;
      const sub = id && svg && svg.querySelector('.cartesianlayer .subplot.' + id);
      const pictures = sub ? [...sub.querySelectorAll('.heatmaplayer image, .imagelayer image')]
        : [];
      const image = pictures.length > 0;  // a picture kept square is drawn smaller than its
      // plot area: its own height is what a person sees
      const h = image ? Math.min(...pictures.map((i) => i.getBoundingClientRect().height))
        : drag && drag.getBoundingClientRect().height;
      return drag ? {h, image} : null;
    }).filter(Boolean);
    const least = (image) => {
      const hs = areas.filter((a) => a.image === image).map((a) => a.h);
      return hs.length ? Math.min(...hs) : null;
    };
    const r = el.getBoundingClientRect();
    return {name: n, box: box(el), veiled: Boolean(el.closest('[data-stage-veil]')),
            smallest: smallest(el), plot: least(false), image: least(true),
            left: r.left, right: r.right};
  });
  // the main area's width for the views, and how far down what it shows above them reaches
  // (a run's buttons, a control the step asks for: beside the lesson's text, not empty room)
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const cs = main ? getComputedStyle(main) : null;
  const pads = cs ? parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) : 0;
  const room = main ? main.clientWidth - pads : 0;
  const first = Math.min(...views.filter(Boolean).map((v) => v.box[0]));
  const above = main ? [...main.querySelectorAll('[data-testid="stElementContainer"]')]
    .filter((el) => !el.closest('.st-key-presenter_bar') && el.getClientRects().length)
    .map((el) => el.getBoundingClientRect())
    .filter((b) => b.height > 0 && b.bottom <= first + 1)
    .reduce((m, b) => Math.max(m, b.bottom), 0) : 0;
  const asked = controls.map((k) => {
    const el = document.querySelector('.st-key-' + CSS.escape(k));
    return {key: k, box: el && el.getClientRects().length ? box(el) : null};
  });
  const live = [...document.querySelectorAll('[class*="_measure"], [class*="_start"]')]
    .some((el) => el.getClientRects().length);
  const options = [...document.querySelectorAll(
    '.st-key-presenter_bar [role="radiogroup"] label')].map((el) => el.getBoundingClientRect());
  return {height: innerHeight, room, above, bar: bar ? box(bar) : null,
          options: options.length ? Math.max(...options.map((r) => r.bottom)) : null,
          barRight: bar ? bar.getBoundingClientRect().right : 0, clipped: text.some(clipped), views,
          answer: !!document.querySelector('.st-key-lesson_answer'), live, asked};
}"""


SETTLED_NOW = """([names, step]) => {
  const none = names.every((n) => !document.querySelector('.st-key-view_' + CSS.escape(n)));
  if (none) return !!document.querySelector('[class*="_measure"], [class*="_start"]');
  const root = document.documentElement;
  if (root.getAttribute('data-stage-settled') !== step) return false;
  if (root.getAttribute('data-stage-screen') !== `${innerWidth}x${innerHeight}`) return false;
  const bar = document.querySelector('.st-key-presenter_bar').getBoundingClientRect();
  const views = names.map((n) => document.querySelector('.st-key-view_' + CSS.escape(n)))
    .filter(Boolean).map((el) => el.getBoundingClientRect());
  return views.every((r) => (r.top >= bar.bottom - 1 || r.left >= bar.right - 1)
    && r.bottom <= innerHeight + 1);
}"""
STEADY_MS = 250  # settled for longer than one tick of the stage (200 ms): a view Plotly drew
# taller after the stage fitted it is fitted again at the next tick, and is cut until then
SETTLED = f"""([names, step]) => {{
  const now = ({SETTLED_NOW})([names, step]), t = performance.now();
  if (!now) {{ window.__settledSince = null; return false; }}
  if (window.__settledSince == null) window.__settledSince = t;
  return t - window.__settledSince >= {STEADY_MS};
}}"""


def settle(tab, views: list[str], where: str) -> str:
    """Wait until the stage has settled (SETTLED). A page still drawing may show Start before
    its views, and a view may still be redrawing itself: then wait for the page to be idle and
    ask once more (else the problems found say what is wrong). Returns how it went, in words."""
    start = time.monotonic()
    for attempt in range(2):
        tab.evaluate("window.__settledSince = null")
        with contextlib.suppress(PlaywrightTimeout):
            tab.wait_for_function(SETTLED, arg=[views, where], timeout=20_000)
        found = tab.evaluate(FOUND, views)
        if found and tab.evaluate(SETTLED_NOW, [views, where]):
            return f"settled after {time.monotonic() - start:.1f} s"
        if attempt:
            return f"not settled after {time.monotonic() - start:.1f} s"
        wait_idle(tab)
    return ""


FOUND = """(names) => names.some((n) => document.querySelector('.st-key-view_' + CSS.escape(n)))"""


def problems(seen: dict, step) -> list[str]:
    """What a lecturer would stumble on in this step's first screen."""
    found = [v for v in seen["views"] if v is not None]
    live = seen["live"]  # Start or Measure on the stage: views drawn once the run or timing is
    out = []
    # a wide, short screen: the lesson's text is a column at the left, the views beside it
    beside = bool(seen["bar"]) and seen["bar"][1] >= seen["height"] - 1
    if not seen["bar"] or (seen["bar"][1] > seen["height"] - 200 and not beside):
        out.append("the lesson's text leaves no room")
    if seen["clipped"]:
        out.append("the narration or the question is clipped")
    if seen["options"] is not None and seen["options"] > seen["height"] + 1:  # the sidebar
        out.append(f"a question's option ends at {seen['options']:.0f} px, under the screen")
    if (not found and not live) or (not live and len(found) < len(step.views)):
        missing = [n for n, v in zip(step.views, seen["views"], strict=True) if not v]
        out.append(f"views missing: {missing}")
    top, bottom = 0 if beside else (seen["bar"] or [0, 0])[1], seen["height"]
    for control in seen["asked"]:  # a widget the narration asks the presenter to move
        box = control["box"]
        if box is None and live:  # a run's timeline: drawn once the run starts
            continue
        if box is None or box[0] < top - 1 or box[1] > bottom + 1:
            out.append(f"control {control['key']} not on screen: {box}")
    out += [f"{v['name']} not whole: {v['box']}" for v in found if v["box"][0] < top - 1]
    out += [f"{v['name']} cut: {v['box']}" for v in found if v["box"][1] > bottom + 1]
    over = max(top, seen["above"]) if beside else top  # beside the text: under the buttons
    if found and min(v["box"][0] for v in found) - over >= EMPTY_BAND:
        out.append("an empty band under the text")
    out += [
        f"{v['name']}: {v['smallest'][1]!r} at {v['smallest'][0]} px"
        for v in found
        if not v["veiled"] and v["smallest"] and v["smallest"][0] < LABEL_MIN
    ]
    for key, least, what in (("plot", PLOT_MIN, "a plot area"), ("image", IMAGE_MIN, "a picture")):
        out += [
            f"{v['name']}: {what} {v[key]:.0f} px tall"
            for v in found
            if not v["veiled"] and v[key] is not None and v[key] < least
        ]
    spans = found and max(v["right"] for v in found) - min(v["left"] for v in found)
    wide = bool(found) and spans >= 0.95 * seen["room"]  # as wide as it may be: no taller
    if found and not wide and bottom - max(v["box"][1] for v in found) >= EMPTY_BAND:
        out.append("an empty band at the bottom")
    if step.question is not None:
        hidden = step.views if step.question.hides is None else step.question.hides
        if seen["answer"]:
            out.append("the answer shows before Reveal")
        out += [
            f"{v['name']} shows before Reveal"
            for v in found
            if v["name"] in hidden and not v["veiled"]
        ]
    return out


def at_step(tab, number: int) -> None:
    where = f"new URLSearchParams(location.search).get('step') === '{number}'"
    tab.wait_for_function(f"() => {where}", timeout=30_000)


def look(tab, slug: str, number: int, step) -> list[str]:
    """Wait for the stage of step `number` to settle on this screen, then what is wrong."""
    ready = f"document.documentElement.getAttribute('data-stage-step') === '{slug}:{number}'"
    try:
        tab.wait_for_function(f"() => {ready}", timeout=60_000)
    except PlaywrightTimeout as err:
        assert_no_exception(tab, f"stage-{slug}-{number}-not-ready")  # a screenshot
        stage = tab.evaluate("document.documentElement.getAttribute('data-stage-step')")
        raise AssertionError(f"step {number}: the stage shows {stage} at {tab.url}") from err
    # the stage measures the room, the server redraws the views to it: then it has settled
    # (a step whose views appear once a run starts or Measure is pressed: nothing to settle)
    how = settle(tab, list(step.views), f"{slug}:{number}")
    seen = tab.evaluate(MEASURE, [list(step.views), list(step.controls)])
    found = problems(seen, step)
    found += [how] if found else []
    if found or tab.locator("[data-testid='stException']").count():
        width = tab.viewport_size["width"]
        assert_no_exception(tab, f"stage-{slug}-{number}-{width}")  # and a screenshot to look at
    return found


@pytest.mark.parametrize("slug", LESSONS, ids=[s[:2] for s in LESSONS])
def test_every_step_shows_its_views_whole_under_its_text(browser, app_url, slug):
    """Every step at 1280×720; a question step then at 1920×1080 too (the window resized: the
    stage measures its room again and the server redraws), and back before Next."""
    lesson = LESSONS[slug]
    tab = browser.new_context(viewport=PROJECTOR).new_page()
    instrument(tab)  # for wait_idle, when the stage has not settled
    found: dict[tuple[int, int], list[str]] = {}
    for number, step in enumerate(lesson.steps, 1):
        if number == 1:  # by its link; the stage says when it is ready
            tab.goto(f"{app_url}/{page_url(step.page)}?lesson={slug}&step={number}")
        else:
            tab.locator(".st-key-lesson_next button").click()
            at_step(tab, number)  # then the stage's own signals say when it is ready
        found[number, PROJECTOR["width"]] = look(tab, slug, number, step)
        if step.question:
            tab.set_viewport_size(WIDE)
            found[number, WIDE["width"]] = look(tab, slug, number, step)
            tab.set_viewport_size(PROJECTOR)
    tab.context.close()
    assert {n: p for n, p in found.items() if p} == {}
