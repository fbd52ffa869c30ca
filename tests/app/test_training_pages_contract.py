"""Every training page, from its scene (issue 37): in a lesson step Space starts the run and
nothing else (the presenter's Space-for-Next stays away), and from a notebook `trained()` trains
the page's job and returns the trained model's views. Pages come from the page table."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import attnviz as av
from attnviz.lessons.model import Lesson, Step
from attnviz.topics.registry import scene_pages
from attnviz.ui.lecture import position
from tests.support.apptest import no_exception
from tests.support.pages import ROOT

pytestmark = pytest.mark.slow
TRAINING = [p for p in scene_pages() if p.scene.trains]
IDS = [p.url for p in TRAINING]


def test_the_table_has_the_seven_training_pages():
    assert len(TRAINING) == 7 and {"watch-circuits", "attention-since-2017"} <= set(IDS)


@pytest.mark.parametrize("entry", TRAINING, ids=IDS)
def test_space_in_a_lesson_step_starts_the_run_and_nothing_else(entry, monkeypatch):
    step = Step(entry.url, "A training step", "Press Space. It starts the run.", {})
    lesson = Lesson("space", "Space", "One step.", (), (step, step))
    monkeypatch.setattr(position, "lessons", lambda: {"space": lesson})
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(entry.script)
    at.query_params.update({"lesson": "space", "step": "1"})
    at.run()
    no_exception(at)
    spaced = [b.key for b in at.button if b.proto.shortcut.lower() == "space"]
    assert spaced == [f"{entry.scene.table.prefix}_start"], spaced
    assert at.button(key="lesson_next").proto.shortcut.lower() == "right"  # → moves on


def steps_key(entry) -> str:
    return f"{entry.scene.table.prefix}_steps"


@pytest.mark.parametrize("entry", TRAINING, ids=IDS)
def test_trained_from_a_notebook_gives_the_trained_models_views(entry):
    """50 steps (the least a page allows): the main view of the trained model, not step 0's."""
    s = av.scene(entry.url, **{steps_key(entry): 50})
    main = entry.scene.main_view
    trained = s.trained(only={main})
    untrained = s.views(only={main})
    (name,) = trained  # the main view, or the view drawn in its place (a run's maps)
    assert entry.scene.stands_for(name) == main
    drawn = json.dumps(trained[name].to_plotly_json()["data"], default=str)
    assert drawn != json.dumps(untrained[main].to_plotly_json()["data"], default=str)
