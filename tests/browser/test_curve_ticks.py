"""A run's curves on a presenter's stage, drawn in Chromium (issue 53): in half a 1280 px
stage Plotly turned the step labels on end ("0 100 200 300 400" read bottom to top) and the loss
panel's last label ran into the metric panel's first. Drawn here as the stage draws them
(attnviz.ui.common.figures.styled_copy: lecture mode's fonts, then the stage's layout), in the
template the app's frontend gives a chart (read off the real page, as
tests/support/bare_figures.py does), at every width a stage gives them and for runs caught at
step 187 to 20,000: every step label upright and no two texts of the figure overlapping
(tests/support/figure_text.py)."""

from __future__ import annotations

import json

import plotly.io as pio
import pytest

from attnviz.figures.training import curves_figure
from attnviz.training.history import History
from attnviz.training.messages import Evaluation
from attnviz.ui.common.figures import styled_copy
from tests.support.bare_figures import LECTURE_LOOK, draw, page_html
from tests.support.browser import SHOTS
from tests.support.figure_text import collisions

pytestmark = pytest.mark.browser
# px: the room a stage gives a run's curves, from two views across at 1280×720 (a lesson step
# shows the curves with one other view at most) to the whole of a 1920×1080 stage
ACROSS = (380, 450, 580, 760, 1150)
STEPS = (187, 400, 800, 1500, 20_000)  # 187: a run caught early (L4 s2 at 5 s: "0 50100150")
STAGE_HEIGHT = 450  # px: about the stage's height at 1280×720 under its buttons
PAGE, PROJECTOR = "train-transformer", {"width": 1280, "height": 720}
LECTURE = "?lecture=true&contrast=true"  # as tests/browser/test_layout_states.py probes it


def run_of(steps: int) -> History:
    history = History()
    for step in range(1, steps + 1, max(1, steps // 400)):
        history.add_step(step, 1 / step)
    for step in range(0, steps + 1, steps // 8):
        history.add_evaluation(Evaluation(step, 1 / (step + 1), 1 / (step + 2), 0.5, step / steps))
    return history


def on_end(text: dict) -> bool:
    """Whether a text box is turned (its first edge not level)."""
    (x0, y0), (x1, y1) = text["corners"][:2]
    return abs(y1 - y0) > 1


def test_step_labels_stay_upright_and_apart_at_every_stage_width(page_probe, browser, tmp_path):
    # the template the app's frontend gives a chart in lecture mode (read off the real page)
    template = page_probe(PAGE, PROJECTOR, LECTURE)["text"]["template"]
    jobs, cases = [], []
    for steps in STEPS:
        for across in ACROSS:
            fig = curves_figure(run_of(steps), "token accuracy", eval_every=steps // 8)
            staged = styled_copy(fig, LECTURE_LOOK, across, STAGE_HEIGHT)
            spec = json.loads(pio.to_json(staged, validate=False))
            spec["layout"]["template"] = template
            jobs.append((spec, across))
            cases.append(f"{steps} steps at {across} px")
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(page_html(tmp_path).as_uri())
    page.evaluate("document.fonts.load('16px \"Source Sans\"')")  # the app's font, not a fallback
    found = []
    for case, figure in zip(cases, draw(page, jobs), strict=True):
        ticks = [t for t in figure["texts"] if t["kind"] == "x tick"]
        assert len(ticks) >= 4, f"{case}: {[t['text'] for t in ticks]}"  # two panels' labels
        found += [f"{case}: {t['text']!r} on end" for t in ticks if on_end(t)]
        found += [f"{case}: {c}" for c in collisions(figure)]
    if found:
        page.screenshot(path=str(SHOTS / "curve_ticks.png"), full_page=True)
    page.close()
    assert not found, "\n".join(found)
