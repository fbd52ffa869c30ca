"""The captioning page's "Try this" claims, performed with the presets' own settings (slow: each
of the two presets is trained once for the test session, as the page trains it, to its last
step: tests/support/trained.py; the fourth claim needs no training and drives the page)."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.figures.captioning import share_figure
from attnviz.topics.captioning.inference import held_out_words, object_attention_share
from attnviz.topics.captioning.params import RANDOM, TABLE
from attnviz.topics.captioning.scene import SCENE
from attnviz.topics.captioning.task import HELD_OUT, PRESETS, CaptionJobSpec, TrainedCaptioner
from attnviz.topics.live import TrainedRun
from attnviz.topics.scene import Job
from tests.support.apptest import figures, no_exception, open_page
from tests.support.trained import FINAL

GRU = "One shape, GRU + additive attention"
TRANSFORMER = "Two shapes, transformer decoder"


def trained_at(run: TrainedRun, index: int) -> TrainedCaptioner:
    """The model of the run's snapshot `index` (0: step 0, -1: the last)."""
    return run.job.spec.restore(run.snapshots[index][1])


@pytest.fixture(scope="module")
def gru_run(trained) -> TrainedRun:
    return trained("captioning", GRU, every=FINAL)


def test_the_page_sets_the_presets_as_the_engine_has_them():
    """The runs below are the page's: its preset values are the engine's presets, and the job
    its Start submits is the engine's preset run."""
    for name, (task, model, config) in PRESETS.items():
        values = TABLE.preset(name)
        assert values["cp_shapes"] == task.n_shapes and values["cp_decoder"] == model.decoder
        assert values["cp_steps"] == config.steps and values["cp_lr"] == config.lr
        assert values["cp_held"] == bool(task.held_out)
        assert SCENE.config(SCENE.values(values)) == Job(CaptionJobSpec(task, model), config)


@pytest.mark.slow
@pytest.mark.try_this("captioning", 1)
def test_the_gru_preset_captions_right_and_its_words_look_at_the_named_shape(gru_run):
    history = gru_run.history
    assert history.eval_step[-1] == 200, "200 steps"
    assert history.val_metric[-1] >= 0.95, history.val_metric
    first_step, _ = gru_run.snapshots[0]
    assert first_step == 0
    task = trained_at(gru_run, 0).task
    before = object_attention_share(trained_at(gru_run, 0).model, task)
    after = object_attention_share(trained_at(gru_run, -1).model, task)
    assert after.share > 0.8, after
    assert 0.10 <= before.share <= 0.20, before
    assert abs(before.share - before.area_share) < 0.05, "step 0: about the shape's area"


@pytest.mark.slow
@pytest.mark.try_this("captioning", 2)
def test_held_out_blue_triangles_are_called_blue_and_a_shape_seen_in_blue(gru_run):
    trained = trained_at(gru_run, -1)
    found = held_out_words(trained.model, trained.task)
    assert found.n_shapes > 20
    assert found.colour_right >= 0.9, found
    assert found.kind_right <= 0.1, found
    seen_blue = sum(n for said, n in found.said.items() if said in ("blue circle", "blue square"))
    assert seen_blue >= 0.9 * found.n_shapes, found.said
    assert gru_run.history.latest_extra(HELD_OUT) <= 0.05


@pytest.mark.slow
@pytest.mark.try_this("captioning", 3)
def test_the_transformer_preset_captions_two_shapes_and_a_head_looks_at_the_named_one(trained):
    run = trained("captioning", TRANSFORMER, every=FINAL)
    assert run.history.val_metric[-1] >= 0.95, run.history.val_metric
    last = trained_at(run, -1)
    assert any(" left of " in text for text in last.task.val_captions)
    found = object_attention_share(last.model, last.task)
    assert found.per_head.shape == (2, 2)
    assert found.per_head.max() > 0.5, found.per_head
    bars = share_figure(found.per_head, found.area_share, "t").data[0]
    assert len(bars.x) == 4 and np.allclose(bars.y, found.per_head.reshape(-1))


def says_and_truth(at) -> tuple[str, str]:
    line = next(m.value for m in at.markdown if m.value.startswith("**It says:**"))
    says, truth = line.split("**True caption:**")
    return says, truth.strip()


def words_image(at) -> str:
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Where words"))
    return fig["data"][0]["source"]


@pytest.mark.try_this("captioning", 4)
def test_a_new_random_scene_with_a_held_out_shape_holds_a_blue_triangle():
    at = open_page("pages/captioning_page.py", {"cp_src": RANDOM})
    no_exception(at)
    _, truth = says_and_truth(at)
    first = words_image(at)
    at.toggle(key="cp_scene_held").set_value(True).run()
    seen = {words_image(at)}
    for _ in range(3):
        says, truth = says_and_truth(at)
        assert "blue triangle" in truth, truth
        assert "**It says:**" in says
        at.button(key="cp_new_scene").click().run()
        no_exception(at)
        seen.add(words_image(at))
    assert len(seen) == 4 and first not in seen, "every press draws another scene"
