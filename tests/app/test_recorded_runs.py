"""Recorded runs in presenter mode (attnviz.ui.training.recorded): on a step the lessons
recorded, Start replays the recording (no worker trains; the status says it is replayed) and
Reveal of a question about the trained model shows the run at its end at once; outside
presenter mode Start trains live as before (tests/app/test_transformer_page.py)."""

from __future__ import annotations

from attnviz.training.replay import REPLAYED
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
