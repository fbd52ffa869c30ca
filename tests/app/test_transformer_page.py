"""AppTest of the live transformer page: a short training, the timeline, a prediction, ablation, bad files."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.apptest import figures, no_exception, open_page

PAGE = "pages/train_transformer.py"


@pytest.fixture
def page() -> Iterator[Callable[[], AppTest]]:
    """Opens the page; every job a test started is reset (stopped) in teardown."""
    opened: list[AppTest] = []

    def open_() -> AppTest:
        opened.append(open_page(PAGE))
        return opened[-1]

    yield open_
    for at in opened:
        reset = at.button(key="tt_reset")
        if not reset.disabled:
            reset.click().run()


def status(at) -> str:
    return next((m.value for m in at.markdown if "**" in m.value and "step" in m.value), "")


def train_until_done(at, timeout=90):
    deadline = time.time() + timeout
    while "done" not in status(at) and time.time() < deadline:
        time.sleep(0.5)
        at.run()
        no_exception(at)
    assert "done" in status(at), status(at)


def layer_maps(at) -> list[dict]:
    return [f for f in figures(at) if f["layout"]["title"]["text"].startswith("Layer 0")]


def test_short_training_timeline_prediction_and_ablation(page):
    at = page()
    next(b for b in at.button if b.label == "Reverse: 1 layer, 1 head").click().run()
    at.slider(key="tt_steps").set_value(400).run()
    at.button(key="tt_start").click().run()
    train_until_done(at)
    assert layer_maps(at), "attention maps of the probe are shown"
    timeline = at.select_slider(key="tt_timeline")
    first, last = timeline.options[0], timeline.options[-1]
    live = layer_maps(at)[0]["data"][0]["z"]
    timeline.set_value(first).run()
    assert layer_maps(at)[0]["data"][0]["z"] != live, (
        "scrubbing the timeline shows an earlier model"
    )
    timeline.set_value(last).run()
    at.text_input(key="tt_input").set_value("1 2 3 4 5 6 7 8").run()
    table = at.dataframe[0].value
    assert list(table["model output"]) == list("87654321")
    at.button(key="tt_ablate").click().run()
    assert any(f["layout"]["title"]["text"].startswith("Accuracy drop") for f in figures(at))
    at.button(key="tt_reset").click().run()
    no_exception(at)


def test_unknown_tokens_get_a_message(page):
    at = page()
    at.slider(key="tt_steps").set_value(50).run()
    at.button(key="tt_start").click().run()
    train_until_done(at)
    at.text_input(key="tt_input").set_value("1 2 banana").run()
    assert any("not in this task's vocabulary" in e.value for e in at.error)
    at.button(key="tt_reset").click().run()


def test_modular_addition_preset_sets_p_and_the_cosine_schedule():
    at = open_page(PAGE)
    assert at.radio(key="tt_sched").value == "constant"
    next(b for b in at.button if b.label == "Modular addition (mod 47)").click().run()
    no_exception(at)
    assert at.slider(key="tt_sym").value == 47 and at.radio(key="tt_sched").value == "cosine"
    assert any("All 2209 sums mod 47" in c.value for c in at.caption)


def test_a_finished_run_is_bound_to_its_settings(page):
    """Repro (issue 9): Next character → Start → done → Copy showed a 40-line `size mismatch`
    traceback under the old run's attention maps."""
    at = page()
    next(b for b in at.button if b.label == "Next character (fables)").click().run()
    at.slider(key="tt_steps").set_value(50).run()
    at.button(key="tt_start").click().run()
    train_until_done(at)
    assert layer_maps(at) and at.text_input(key="tt_input") is not None
    next(b for b in at.button if b.label == "Copy: causal decoder").click().run()
    no_exception(at)
    changed = next(w.value for w in at.warning if "Settings changed since this run" in w.value)
    assert "Start trains a new one" in changed and "task.name" in changed
    assert not layer_maps(at), "no stale attention maps of the old run"
    assert not at.get("text_input"), "no tools built from the old model"
    assert any("appear here once training starts" in c.value for c in at.caption)
