"""Recorded runs in presenter mode (attnviz.ui.training.recorded): on a step the lessons
recorded, Start replays the recording (no worker trains; the status says it is replayed) and
Reveal of a question about the trained model shows the run at its end at once; outside
presenter mode Start trains live as before (tests/app/test_transformer_page.py). While a replay
runs, the step's views are on the stage."""

from __future__ import annotations

import re

import pytest

from attnviz.lessons.recordings import lesson_jobs
from attnviz.topics import registry
from attnviz.training.replay import REPLAYED
from attnviz.ui.common.here import VIEW_PREFIX
from attnviz.ui.lecture.position import lessons
from tests.app.test_lessons_page import open_step
from tests.support.apptest import no_exception


def status(at) -> str:
    return " ".join(m.value for m in at.markdown if " — step " in m.value)


def test_start_on_a_recorded_step_replays_the_recording():
    slug = next(s for s in lessons() if s.startswith("04"))
    at = open_step(slug, 2)  # "Press Start": the curves and the layer-0 map
    no_exception(at)
    assert at.session_state["tt_replay"] == "Recorded, 20 s"  # beside the buttons, by default
    assert not status(at), "nothing runs before Start"
    at.button(key="tt_start").click().run()
    no_exception(at)
    assert "**running** — step" in status(at) and REPLAYED in status(at), status(at)


def test_reveal_of_a_question_about_the_trained_model_shows_the_run_at_its_end():
    slug = next(s for s in lessons() if s.startswith("04"))
    step = lessons()[slug].steps[0]
    assert step.question is not None and step.question.trained
    at = open_step(slug, 1)  # "After training, which pattern…?" with the untrained map
    assert not status(at)
    at.button(key="lesson_reveal").click().run()
    no_exception(at)
    assert "**done** — step 800 of 800" in status(at) and REPLAYED in status(at), status(at)


def staged_views(node) -> set[str]:
    """The named views the stage holds: the containers keyed view_<name> (their block's id
    ends with the key) that hold a chart."""
    found = set()
    ident = str(getattr(getattr(node, "proto", None), "id", "") or "")
    children = getattr(node, "children", {})
    if VIEW_PREFIX in ident and any(True for _ in charts(node)):
        found.add(ident.split(VIEW_PREFIX, 1)[1])
    for child in children.values():
        found |= staged_views(child)
    return found


def charts(node):
    """The Plotly charts under `node`."""
    if getattr(node, "type", None) == "plotly_chart":
        yield node
    for child in getattr(node, "children", {}).values():
        yield from charts(child)


RECORDED = sorted(step for _, _, steps in lesson_jobs().values() for step in steps)


@pytest.mark.parametrize(("slug", "number"), RECORDED, ids=[f"{s[:2]}-{n}" for s, n in RECORDED])
def test_a_recorded_step_stages_its_views_before_and_while_its_run_replays(slug, number):
    """Every lesson step whose run is recorded: its views are on the stage before Start (but a
    view drawn only from a run's snapshots) and while the replay runs. The vision page drew
    only its maps while a run stepped, and its mean attention distance only after one: L7 s6
    and s8 were empty stages (issue 53)."""
    step = lessons()[slug].steps[number - 1]
    scene = registry.page(step.page).scene
    at = open_step(slug, number)
    no_exception(at)
    prefix = scene.table.prefix
    curves = f"{prefix}_curves"  # drawn before a run only on a stage that shows them alone:
    alone = tuple(step.views) == (curves,)  # the untrained model's step 0 (L7 s3)
    run_only = {*scene.run_views, *([] if alone else [curves])}
    assert staged_views(at._tree) == set(step.views) - run_only, "before Start"
    at.button(key=f"{prefix}_start").click().run()
    no_exception(at)
    # running, or done at once where there is nothing to learn (a boxcar kernel, L2 s5)
    assert re.search(r"\*\*(running|done)\*\* — step", status(at)), status(at)
    assert REPLAYED in status(at), status(at)
    assert staged_views(at._tree) == set(step.views), status(at)
