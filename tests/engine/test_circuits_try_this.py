"""The Watching circuits form page's presets from a clean start and its Try-this claims, on runs
trained once per session by the page's own scene (the `trained` fixture, one thread): the
two-layer attention-only model forms an induction head after a phase change, the one-layer model
cannot, zeroing the induction head undoes the in-context learning; grokking memorises first;
softmax parks attention on position 0 and softmax plus one does not.

Thresholds, from Olsson et al. (2022): an induction head puts most of its mass on the token after
the earlier occurrence (induction score ≥ 0.5 here; uniform causal attention scores ~0.05 on 32
positions), and in-context learning shows as the repeated copy's loss falling far below the first
copy's, which no model can predict better than chance (ln 32 ≈ 3.47 nats)."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics import live
from attnviz.topics.watch_circuits.scene import SCENE, ablation, phase_change, preset_jobs
from tests.support.trained import FINAL

URL = "watch-circuits"
TWO, ONE = "Induction: 2 layers", "Induction: 1 layer"


def steepest_gap_fall(history) -> int:
    """The oracle of the phase change: the middle of the evaluation interval over which the
    repeated copy's loss fell fastest relative to the first copy's (plain loops)."""
    steps = history.eval_step
    gap = [ex["loss_repeated_copy"] - ex["loss_first_copy"] for ex in history.extra]
    best, where = 0.0, None
    for i in range(len(steps) - 1):
        slope = (gap[i + 1] - gap[i]) / (steps[i + 1] - steps[i])
        if slope < best:
            best, where = slope, (steps[i] + steps[i + 1]) / 2
    return round(where)


@pytest.mark.try_this("watch-circuits", 1)
def test_two_layers_form_an_induction_head_after_a_marked_phase_change(trained):
    run = trained(URL, TWO)
    phase = phase_change(run.history)
    assert phase == steepest_gap_fall(run.history)
    assert 100 < phase < 900, phase
    induction = run.snapshot.scores["induction"]  # (L, H)
    assert induction[1].max() > 0.5, induction
    before = [snap.scores["induction"][1].max() for s, snap in run.snapshots if s < phase - 50]
    assert max(before) < 0.3, before  # the head was not there before the phase change
    first, repeat = run.snapshot.loss_first_copy, run.snapshot.loss_repeated_copy
    assert repeat < 0.5 * first, (first, repeat)
    marked = SCENE.views(run_result(run), SCENE.values(SCENE.table.preset(TWO)))["ci_progress"]
    assert [shape.x0 for shape in marked.layout.shapes] == [phase]


def run_result(run) -> live.RunSoFar:
    return live.so_far(run.history, run.snapshots, None)


@pytest.mark.try_this("watch-circuits", 2)
def test_one_layer_does_not_form_one(trained):
    run = trained(URL, ONE)
    assert np.nanmax(run.snapshot.scores["induction"]) < 0.3
    first, repeat = run.snapshot.loss_first_copy, run.snapshot.loss_repeated_copy
    assert repeat > 0.6 * first, (first, repeat)
    assert phase_change(run.history) is None
    marked = SCENE.views(run_result(run), SCENE.values(SCENE.table.preset(ONE)))["ci_progress"]
    assert not marked.layout.shapes


@pytest.mark.try_this("watch-circuits", 3)
def test_zeroing_the_induction_or_the_previous_token_head_raises_the_loss_above_3(trained):
    run = trained(URL, TWO)
    scores = run.snapshot.scores
    induction, previous = np.argmax(scores["induction"][1]), np.argmax(scores["previous"][0])
    base, losses = ablation(run.job.spec, run.snapshot)
    assert losses.shape == (2, 2)
    assert base < 0.5, base
    assert losses[1, induction] > 3.0 and losses[0, previous] > 3.0, losses


@pytest.mark.try_this("watch-circuits", 4)
def test_grokking_memorises_long_before_it_generalises(trained):
    run = trained(URL, "Grokking: a+b mod 53", stop_at=100, every=100)
    assert run.history.eval_step == [0, 100]
    assert run.history.train_metric[-1] > 0.95
    assert run.history.val_metric[-1] < 0.05


@pytest.mark.try_this("watch-circuits", 5)
def test_softmax_parks_attention_on_position_0(trained):
    run = trained(URL, "Sinks: softmax without BOS", stop_at=1000, every=FINAL)
    assert run.snapshots[-1][0] == 1000
    assert run.snapshot.scores["sink"][1].max() >= 0.4, run.snapshot.scores["sink"]


# each preset as the measurements describe it (README, benchmarks/circuits.py): experiment,
# layers / modulus / attention, steps, learning rate, batches
MEASURED = {
    TWO: ("induction", 2, 1000, 1e-2, 64),
    ONE: ("induction", 1, 1000, 1e-2, 64),
    "Grokking: a+b mod 53": ("grokking", 53, 6000, 1e-3, None),
    "Sinks: softmax without BOS": ("sinks", "softmax", 2000, 1e-2, 64),
    "Sinks: softmax + 1": ("sinks", "softmax1", 2000, 1e-2, 64),
    "Sinks: sigmoid": ("sinks", "sigmoid", 2000, 1e-2, 64),
}


def described(job) -> tuple:
    """A preset's Job in the words of MEASURED."""
    spec, train = job.spec, job.train
    batch = train.batch_size if train.batch_mode == "minibatch" else None
    if hasattr(spec, "p"):
        return ("grokking", spec.p, train.steps, train.lr, batch)
    if spec.data.seg_max == 16:  # the induction experiment's data (sinks: 15, fits a BOS)
        return ("induction", spec.model.n_layer, train.steps, train.lr, batch)
    return ("sinks", spec.model.attention, train.steps, train.lr, batch)


def test_the_presets_are_written_once_and_submit_the_measured_jobs():
    """The page's table is the one place the presets are written: the engine's jobs (what the
    benchmarks train and the figures were measured on) are derived from it."""
    jobs = preset_jobs()
    assert {name: described(job) for name, job in jobs.items()} == MEASURED
    assert set(preset_jobs("Induction heads")) == {TWO, ONE}
