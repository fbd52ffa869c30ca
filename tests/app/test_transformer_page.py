"""AppTest of the live transformer page: a short training, the timeline, a prediction,
ablation, bad files."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attnviz.data.tasks import TaskSpec, build_task
from attnviz.models.checkpoint import save_model
from attnviz.models.transformer import TinyTransformer, TransformerConfig
from attnviz.topics.train_transformer.params import TABLE
from attnviz.topics.train_transformer.task import model_config
from attnviz.topics.training_params import train_config
from tests.support.apptest import figures, no_exception, open_page, plotly_array, train_until_done

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
    assert at.radio(key="tt_schedule").value == "constant"
    next(b for b in at.button if b.label == "Modular addition (mod 47)").click().run()
    no_exception(at)
    assert at.slider(key="tt_sym").value == 47 and at.radio(key="tt_schedule").value == "cosine"
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
    assert any(m.label.startswith("validation accuracy") for m in at.metric)
    next(b for b in at.button if b.label == "Copy: causal decoder").click().run()
    no_exception(at)
    assert not at.metric, "no accuracy of the old run over the new settings' untrained model"
    changed = next(w.value for w in at.warning if "Settings changed since this run" in w.value)
    assert "Start trains a new one" in changed and "Changed: task (was " in changed
    assert not layer_maps(at), "no stale attention maps of the old run"
    assert not at.get("text_input"), "no tools built from the old model"
    untrained = [f for f in figures(at) if f["layout"]["title"]["text"].startswith("Step 0, layer")]
    assert untrained, "the new settings' untrained model, drawn in the run's place"


def start(at, preset: str, steps: int) -> None:
    """Pick a preset, set the steps, press Start and wait until the run is done."""
    next(b for b in at.button if b.label == preset).click().run()
    at.slider(key="tt_steps").set_value(steps).run()
    at.button(key="tt_start").click().run()
    train_until_done(at)


def checkpoint(task: TaskSpec) -> tuple[bytes, str]:
    """An untrained model of `task`, saved as the page saves one (weights, config JSON)."""
    model = TinyTransformer(model_config(build_task(task), TransformerConfig(d_model=16, d_ff=32)))
    return save_model(model, {"task": dataclasses.asdict(task)})


def upload(at, files: tuple[bytes, str]) -> None:
    weights, config = files
    at.get("file_uploader")[0].set_value(("m.safetensors", weights, "application/octet-stream"))
    at.get("file_uploader")[1].set_value(("m.json", config.encode(), "application/json")).run()


def test_a_model_trained_for_another_task_is_refused(page):
    """Repro (issue 10): a next-character model loaded on the reverse task said "Loaded a model",
    then "Your input" crashed with an IndexError."""
    at = page()
    start(at, "Reverse: 1 layer, 1 head", 50)
    upload(at, checkpoint(TaskSpec("next_char", length=16)))
    no_exception(at)
    refusal = next(e.value for e in at.error if "does not fit the current task" in e.value)
    assert "'next_char'" in refusal and "vocabulary has 30 tokens" in refusal, refusal
    assert not any("Loaded a model" in m.value for m in at.success)
    assert any("this run's model at step 50" in c.value for c in at.caption)
    assert len(at.dataframe[0].value) == 8, "Your input still runs, on the run's own model"


def test_a_fitting_model_is_loaded_and_named(page):
    at = page()
    start(at, "Reverse: 1 layer, 1 head", 50)
    upload(at, checkpoint(TaskSpec("reverse", length=8)))
    no_exception(at)
    assert any("trained on reverse, length 8, 10 symbols" in m.value for m in at.success)
    shown_task = "the loaded model**, trained on reverse, length 8, 10 symbols"
    assert any(shown_task in c.value for c in at.caption)


def test_modular_addition_says_only_the_last_row_is_the_answer(page):
    at = page()
    start(at, "Modular addition (mod 47)", 50)
    assert at.text_input(key="tt_input").value.endswith("=")
    assert any("Only the last row is the answer" in c.value for c in at.caption)
    at.text_input(key="tt_input").set_value("30 + 40 =").run()
    no_exception(at)
    said = next(m.value for m in at.markdown if m.value.startswith("Right answer"))
    assert said.startswith("Right answer: (30 + 40) mod 47 = **23**; the model says **"), said
    assert said.endswith(f"**{at.dataframe[0].value['model output'].iloc[-1]}**.")


def test_unknown_characters_are_named_not_silently_dropped(page):
    """Repro (issue 10): unknown characters in Your input and the Generate prompt vanished."""
    at = page()
    start(at, "Next character (fables)", 50)
    at.text_input(key="tt_input").set_value("The Fox!").run()
    no_exception(at)
    said = " ".join(w.value for w in at.warning)
    assert "left out: 'T', 'F', '!'" in said, said
    assert list(at.dataframe[0].value["input"]) == list("he ox"), "spaces are tokens of text"
    at.text_input(key="tt_prompt").set_value("Zebra? a fox").run()
    said = " ".join(w.value for w in at.warning)
    assert "left out of the prompt: 'Z', '?'" in said, said
    assert at.get("code")[0].value.startswith("ebra a fox")


def test_maps_and_ablation_can_be_downloaded(page):
    at = page()
    start(at, "Sort: 1 layer, 2 heads", 50)
    keys = {b.proto.id for b in at.get("download_button")}
    assert any("tt_live_dl0_csv" in k for k in keys) and any("tt_live_dl0_json" in k for k in keys)
    at.button(key="tt_ablate").click().run()
    keys = {b.proto.id for b in at.get("download_button")}
    assert any("tt_ablation_dl_csv" in k for k in keys), keys


def test_the_speed_control_reaches_the_training_config():
    values = TABLE.defaults() | {"tt_max_steps_per_s": 5}
    assert train_config("tt", values).max_steps_per_s == 5
    at = open_page(PAGE)
    assert at.select_slider(key="tt_max_steps_per_s").value == 0, "max by default on this page"
    at.select_slider(key="tt_max_steps_per_s").set_value(20).run()
    no_exception(at)


@pytest.mark.try_this("train-transformer", 1)
def test_the_reverse_map_drawn_on_the_page_is_anti_diagonal(page):
    """The figure the page draws for the trained reverse preset: one distinct column per probe
    position (repeated digits included) and row i's largest weight at column T−1−i. (Fails
    until heads_grid draws categorical token axes: the figures branch.)"""
    at = page()
    start(at, "Reverse: 1 layer, 1 head", 500)
    fig = layer_maps(at)[0]
    trace, axis = fig["data"][0], fig["layout"]["xaxis"]
    z = plotly_array(trace["z"])  # (T, T)
    t = len(z)
    if axis.get("type") == "category":  # token labels as categories, one column each
        labels = list(trace["x"])
    else:  # or numeric columns 0..T−1 labelled with tick texts
        x = list(trace.get("x", range(t)))
        assert x == list(range(t)), f"token labels {x} on a numeric axis: drawn as numbers"
        labels = list(axis.get("ticktext", []))
    assert len(labels) == t and len(set(labels)) == t, f"x labels {labels}: not one per column"
    assert [int(i) for i in np.asarray(z).argmax(-1)] == list(range(t))[::-1]
