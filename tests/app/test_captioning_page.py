"""AppTest of the captioning page: its settings change what is drawn (decoder, heads, scenes,
images), a short run trains the captioner (the scores it shows are those of its model's greedy
captions, worked out in the test; curves; timeline back to step 0) and the experiments open
after it, and hold-out switched off says so instead of measuring nothing."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics.captioning.params import MEAN
from attnviz.topics.captioning.task import BLEU, HELD_OUT, TOKEN_ACCURACY
from attnviz.training.jobs import Job, JobPool
from tests.support.apptest import (
    figures,
    no_exception,
    plotly_array,
    train_until_done,
    training_page_fixture,
)
from tests.support.caption_oracles import scores_by_hand, seen_and_held

PAGE = "pages/captioning_page.py"


page = training_page_fixture(PAGE, "cp")  # opens the page; Reset in teardown


def titled(at, start: str) -> list[dict]:
    return [f for f in figures(at) if f["layout"]["title"]["text"].startswith(start)]


def figure(at, start: str) -> dict:
    found = titled(at, start)
    assert found, [f["layout"]["title"]["text"][:50] for f in figures(at)]
    return found[0]


def word_maps(at) -> list:
    """The main figure's maps, one per generated word."""
    fig = figure(at, "Where words look")
    return [plotly_array(t["z"]).tolist() for t in fig["data"] if t["type"] == "heatmap"]


def panel_names(at) -> list[str]:
    return [a["text"] for a in figure(at, "Where words look")["layout"]["annotations"]]


def said(at) -> tuple[str, str]:
    line = next(m.value for m in at.markdown if m.value.startswith("**It says:**"))
    says, _, truth = line.partition("**True caption:**")
    return says.removeprefix("**It says:**").split(" (")[0].strip(), truth.strip()


def test_before_start_the_untrained_model_captions_a_validation_image(page):
    at = page()
    no_exception(at)
    assert "step 0" in figure(at, "Where words look")["layout"]["title"]["text"]
    says, truth = said(at)
    maps, names = word_maps(at), panel_names(at)
    ended = len(says.split()) < 11  # the model wrote <eos> before the longest caption's end
    assert len(maps) == len(says.split()) + ended, "a map per word (and its end)"
    assert names[0] == "the image" and len(names) == len(maps) + 1
    assert truth == "a small green circle", "validation image 0 of seed 0"
    assert {m.label: m.value for m in at.metric}["exact match"] == "–"
    matrix = figure(at, "Cross-attention, words × regions")
    assert len(matrix["layout"]["xaxis"]["ticktext"]) == 36
    assert matrix["layout"]["yaxis"]["title"]["text"] == "word written"
    assert at.selectbox(key="cp_head").disabled, "the GRU has one attention"


def test_settings_change_the_model_the_heads_and_the_scenes(page):
    at = page()
    before = word_maps(at)
    at.selectbox(key="cp_score").set_value("general").run()
    assert word_maps(at) != before, "another attention score, another (untrained) model"
    at.radio(key="cp_decoder").set_value("transformer").run()
    no_exception(at)
    head = at.selectbox(key="cp_head")
    assert not head.disabled and head.options == [MEAN, "layer 0, head 0", "layer 0, head 1"]
    mean = word_maps(at)
    head.set_value("layer 0, head 1").run()
    assert "(layer 0, head 1)" in figure(at, "Where words look")["layout"]["title"]["text"]
    assert word_maps(at) != mean
    at.slider(key="cp_layers").set_value(2).run()
    assert len(at.selectbox(key="cp_head").options) == 5
    at.radio(key="cp_shapes").set_value(2).run()
    assert " left of " in said(at)[1], "two shapes: the left one first"
    at.slider(key="cp_image").set_value(7).run()
    assert any("Validation image 7" in c.value for c in at.caption)


@pytest.fixture
def submitted(monkeypatch) -> list[Job]:
    """The jobs the page submits to its pool (which runs in this process), in order."""
    jobs: list[Job] = []
    submit = JobPool.submit

    def recording(pool: JobPool, *args, **kwargs) -> Job:
        jobs.append(submit(pool, *args, **kwargs))
        return jobs[-1]

    monkeypatch.setattr(JobPool, "submit", recording)
    return jobs


def check_scores(at, job: Job) -> None:
    """The scores shown are those of the run's model at its last step, worked out here from the
    greedy captions it writes for the validation scenes (tests/support/caption_oracles.py)."""
    step, snapshot = job.poll().snapshots[-1]
    trained = job.spec.restore(snapshot)
    task = trained.task
    seen, held = seen_and_held(task)
    on_seen = scores_by_hand(trained.model, task.val_images[seen], task.val_y[seen])
    on_held = scores_by_hand(trained.model, task.val_images[held], task.val_y[held])
    assert (step, on_seen.n, on_held.n) == (50, 225, 75)
    assert 0 < on_seen.exact < 1 and 0 < on_seen.bleu < 1, on_seen  # measured: 0.51, 0.69
    history = job.state.history
    assert history.eval_step[-1] == 50
    assert history.val_metric[-1] == pytest.approx(on_seen.exact, abs=1e-6)
    assert history.latest_extra(TOKEN_ACCURACY) == pytest.approx(on_seen.tokens, abs=1e-6)
    assert history.latest_extra(BLEU) == pytest.approx(on_seen.bleu, abs=1e-9)
    assert history.latest_extra(HELD_OUT) == pytest.approx(on_held.exact, abs=1e-6)
    curves = {t["name"]: plotly_array(t["y"]) for t in figure(at, "Loss and")["data"]}
    assert curves["validation exact match"][-1] == pytest.approx(on_seen.exact, abs=1e-6)
    shown = {m.label: m.value for m in at.metric}
    assert shown == {
        "exact match": f"{on_seen.exact:.0%}",
        "token accuracy": f"{on_seen.tokens:.0%}",
        "BLEU": f"{on_seen.bleu:.2f}",
        "held-out exact": f"{on_held.exact:.0%}",
    }, (on_seen, on_held)


def test_a_short_run_trains_the_captioner_and_the_experiments_open(page, submitted):
    at = page()
    at.slider(key="cp_steps").set_value(50).run()
    before = word_maps(at)
    at.button(key="cp_start").click().run()
    train_until_done(at, 240)
    assert len(submitted) == 1
    check_scores(at, submitted[0])
    names = [t["name"] for t in figure(at, "Loss and")["data"]]
    assert any("exact match" in n for n in names), names
    assert "step 50" in figure(at, "Where words look")["layout"]["title"]["text"]
    assert word_maps(at) != before, "the trained model's attention, not step 0's"
    timeline = at.select_slider(key="cp_timeline")
    timeline.set_value(timeline.options[0]).run()
    assert "step 0" in figure(at, "Where words look")["layout"]["title"]["text"]
    assert np.allclose(word_maps(at), before), "step 0 of the run is the model shown before Start"
    timeline.set_value(timeline.options[-1]).run()
    for key in ("cp_open_heads", "cp_open_share", "cp_open_held"):
        at.session_state[key] = True
    at.run()
    no_exception(at)
    assert not titled(at, "Each layer and head"), "the GRU has one attention: no grid"
    share = figure(at, "Attention on the named shape, step 50")
    assert list(share["data"][0]["x"]) == ["the GRU's attention"]
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["on the named shape"].rstrip("%")) > float(
        metrics["spread evenly"].rstrip("%")
    ), "after 50 steps the words look at their shape more than evenly"
    assert figure(at, "What it says for a blue triangle")["data"][0]["orientation"] == "h"
    examples = figure(at, "Held-out scenes")
    assert len(examples["layout"]["annotations"]) == 4
    listed = [m.value for m in at.markdown if m.value.startswith("- **#")]
    assert len(listed) == 1 and listed[0].count("\n- **#") == 3, "what each of the 4 says"
    assert listed[0].count("; true: “") == 4
    assert {"colour word right", "shape word right", "both right"} <= set(metrics)


def test_hold_out_off_leaves_nothing_held_out_and_says_so(page):
    at = page({"cp_held": "false", "cp_open_held": "true", "cp_src": "a new random scene"})
    no_exception(at)
    assert any("Hold-out is off" in i.value for i in at.info)
    assert at.toggle(key="cp_scene_held").disabled
    assert not titled(at, "What it says for a blue triangle")


def test_the_transformer_grid_shows_every_layer_and_head_for_every_word(page):
    at = page({"cp_decoder": "transformer", "cp_heads": "4", "cp_open_heads": "true"})
    no_exception(at)
    grid = figure(at, "Each layer and head")
    words = len(word_maps(at))
    overlays = [t for t in grid["data"] if t["type"] == "heatmap"]
    assert len(overlays) == words * 4, "1 layer × 4 heads per word"
    rows = [a["text"] for a in grid["layout"]["annotations"]][words:]
    assert rows == ["L0 H0", "L0 H1", "L0 H2", "L0 H3"]
    assert any(c.value.startswith("Columns: 1 ") for c in at.caption), "the words, numbered"
