"""Whether a kept run (a lesson's recording, the suite's kept trained runs) starts as the run this
code trains: its losses and evaluations up to a step, and its step-0 snapshot, against a live run
trained here to that step (tests/engine/test_recordings.py, tests/engine/test_trained_cache.py)."""

from __future__ import annotations

import numpy as np

TOLERANCE = 1e-4  # relative: the same seeded CPU run, recorded on another day
ATOL = 1e-6  # a metric near 0 (kernel-smoother's 0.0013 at step 0 read 2e-7 apart on another CPU)
# Another CPU sums in another order (AVX-512's 16 lanes, not AVX2's 8): the first steps agree to
# TOLERANCE, then training compounds the difference (captioning's loss 1e-3 apart by step 34 and
# 9 % by step 39 on an AVX-512 Xeon, for a recording made on another machine), so the live run
# is compared up to this step, which the seed, the data, the initial weights and the learning
# rate all decide
EXACT_STEPS = 10
KEPT = 1e-3  # relative, a snapshot's float32 arrays: kept as float16 (attnviz.training.recording)


def leaves(tree: dict, prefix: str = "") -> dict[str, np.ndarray]:
    """A snapshot's tree flattened: {"a/b": array}."""
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out |= leaves(value, f"{prefix}{key}/")
        else:
            out[prefix + key] = np.asarray(value)
    return out


def assert_same_start(kept, run, upto: int, rtol: float = KEPT) -> None:
    """`kept`'s numbers (a Recording or a TrainedRun) up to step `upto` are the live run `run`'s;
    its step-0 snapshot's arrays equal to `rtol`."""
    mine, theirs = kept.history, run.history
    steps = [s for s in theirs.step if s <= upto]
    assert [s for s in mine.step if s <= upto] == steps
    np.testing.assert_allclose(
        mine.train_loss[: len(steps)], theirs.train_loss, rtol=TOLERANCE, atol=ATOL
    )
    evals = [s for s in theirs.eval_step if s <= upto]
    assert mine.eval_step[: len(evals)] == evals
    for name in ("val_loss", "train_metric", "val_metric"):
        got, want = getattr(mine, name)[: len(evals)], getattr(theirs, name)[: len(evals)]
        np.testing.assert_allclose(got, want, rtol=TOLERANCE, atol=ATOL, err_msg=name)
    (first, snap), (live_first, live_snap) = kept.snapshots[0], run.snapshots[0]
    assert first == live_first
    assert type(snap) is type(live_snap)
    want = leaves(live_snap.tree())
    got = leaves(snap.tree())
    assert got.keys() == want.keys()
    for name, array in want.items():
        assert got[name].shape == array.shape, name  # (assert_allclose broadcasts)
        np.testing.assert_allclose(got[name], array, rtol=rtol, atol=1e-6, err_msg=name)
