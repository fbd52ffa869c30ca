"""The induction-heads presets from a clean start (one shared training each, ~6 s and ~3 s on
one core): the two-layer attention-only model forms an induction head, the one-layer model
cannot, and zeroing the induction head undoes the in-context learning.

Thresholds, from Olsson et al. (2022): an induction head puts most of its mass on the token after
the earlier occurrence (prefix-matching score ≥ 0.5 here; random causal attention scores ~0.05
on 32 positions), and in-context learning shows as the repeated copy's loss falling far below
the first copy's, which no model can predict better than chance (ln 32 ≈ 3.47 nats)."""

import numpy as np
import pytest

from attnviz.topics.circuits.induction import (
    ablation_losses,
    induction_bump,
    loss_curve,
    repeated_copy_loss,
)
from attnviz.topics.circuits.presets import INDUCTION_PRESETS
from attnviz.topics.live import train
from tests.support.trained import shared_folder, shared_run

TWO, ONE = "2 layers, attention only", "1 layer, attention only"


@pytest.fixture(scope="session")
def trained_circuit(tmp_path_factory, worker_id):
    """`trained_circuit(name)`: an INDUCTION_PRESETS job trained once per session, one thread."""
    folder, memo = shared_folder(tmp_path_factory, worker_id), {}

    def get(name: str):
        if name not in memo:
            job = INDUCTION_PRESETS[name]
            memo[name] = shared_run(folder, f"circuits:{name}", lambda: train(job, threads=1))
        return memo[name]

    return get


def final_scores(run) -> dict[str, np.ndarray]:
    return run.snapshot["scores"]


def test_two_layers_form_an_induction_head_after_a_phase_change(trained_circuit):
    run = trained_circuit(TWO)
    induction = final_scores(run)["induction"]  # (L, H)
    assert induction[1].max() >= 0.5, induction
    first, repeat = run.snapshot["loss_first_copy"], run.snapshot["loss_repeated_copy"]
    assert repeat < 0.5 * first, (first, repeat)
    bump = induction_bump(run.snapshots)
    assert bump is not None and 0 < bump < run.snapshots[-1][0]
    before = [
        snap["scores"]["induction"][1].max() for step, snap in run.snapshots if step < bump - 50
    ]
    assert max(before) < 0.3  # the head was not there before the bump
    curve = loss_curve(run.snapshots)
    assert curve[0] - curve[-1] > 2.0  # the repeated copy's loss fell by more than 2 nats


def test_one_layer_does_not_form_one(trained_circuit):
    run = trained_circuit(ONE)
    assert np.nanmax(final_scores(run)["induction"]) < 0.3
    first, repeat = run.snapshot["loss_first_copy"], run.snapshot["loss_repeated_copy"]
    assert repeat > 0.6 * first, (first, repeat)
    assert induction_bump(run.snapshots) is None


def test_zeroing_the_induction_head_raises_the_repeated_copy_loss(trained_circuit):
    run = trained_circuit(TWO)
    model, spec = run.restore(), run.job.spec
    data = spec.data.build(256, 1)  # the validation sequences' start
    head = int(np.argmax(final_scores(run)["induction"][1]))
    base = repeated_copy_loss(model, data)
    ablated = repeated_copy_loss(model, data, [(1, head)])
    assert ablated > base + 1.0, (base, ablated)
    losses = ablation_losses(model, data)
    assert losses.shape == (2, 2) and losses[1, head] == pytest.approx(ablated)
