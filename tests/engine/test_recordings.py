"""The bundled lessons' recorded runs (attnviz.lessons.recordings): every step that trains has
its run recorded, no recording is left over, and each recording is the seeded run a person would
train with the step's settings: a live run here, trained to step EXACT_STEPS, gives the
recording's losses and evaluations up to there (to TOLERANCE) and its step-0 snapshot (to KEPT)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from attnviz.lessons.recordings import RECORDINGS, lesson_jobs, recorded
from attnviz.topics import live
from attnviz.topics.scene import Job
from attnviz.training.recording import Recording

TOLERANCE = 1e-4  # relative: the same seeded CPU run, recorded on another day
ATOL = 1e-6  # a metric near 0 (kernel-smoother's 0.0013 at step 0 read 2e-7 apart on another CPU)
# Another CPU sums in another order (AVX-512's 16 lanes, not AVX2's 8): the first steps agree to
# TOLERANCE, then training compounds the difference (captioning's loss 1e-3 apart by step 34 and
# 9 % by step 39 on an AVX-512 Xeon, for a recording made on another machine), so the live run
# is compared up to this step, which the seed, the data, the initial weights and the learning
# rate all decide
EXACT_STEPS = 10
KEPT = 1e-3  # relative, a snapshot's float32 arrays: kept as float16 (attnviz.training.recording)
JOBS = lesson_jobs()


def test_every_step_that_trains_has_its_run_recorded_and_nothing_else_is_kept():
    missing = [
        f"{page} ({', '.join(f'L{s[:2]} s{n}' for s, n in steps)})"
        for page, job, steps in JOBS.values()
        if recorded(job) is None
    ]
    assert missing == [], f"record them: python -m scripts.record_runs: {missing}"
    kept = {path.with_suffix("") for path in RECORDINGS.glob("*")}
    assert kept == set(JOBS), "left over (python -m scripts.record_runs removes them)"
    assert len(JOBS) >= 20


def leaves(tree: dict, prefix: str = "") -> dict[str, np.ndarray]:
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out |= leaves(value, f"{prefix}{key}/")
        else:
            out[prefix + key] = np.asarray(value)
    return out


def assert_same_start(recording: Recording, run: live.TrainedRun, upto: int) -> None:
    """The recording's numbers up to step `upto` are the live run's."""
    mine, theirs = recording.history, run.history
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
    (first, snap), (live_first, live_snap) = recording.snapshots[0], run.snapshots[0]
    assert first == live_first
    assert type(snap) is type(live_snap)
    want = leaves(live_snap.tree())
    got = leaves(snap.tree())
    assert got.keys() == want.keys()
    for name, array in want.items():
        assert got[name].shape == array.shape, name  # (assert_allclose broadcasts)
        np.testing.assert_allclose(got[name], array, rtol=KEPT, atol=1e-6, err_msg=name)


@pytest.mark.slow
@pytest.mark.parametrize("stem", list(JOBS), ids=[f"{JOBS[s][0]}-{s.name}" for s in JOBS])
def test_a_recording_is_the_seeded_run_of_its_step(stem):
    page, job, steps = JOBS[stem]
    recording = recorded(job)
    assert recording is not None
    upto = min(EXACT_STEPS, recording.last_step)
    run = live.train(Job(replace(job.spec, device="cpu"), job.train), stop_at=upto)
    assert_same_start(recording, run, upto)
    assert recording.total_steps == job.train.steps
    assert recording.status in ("done", "stopped early"), recording.reason  # not diverged
    job.spec.restore(recording.snapshots[-1][1])  # the page can draw it (a (1,) for a scalar
    # parameter was refused: every replay of lesson 2 ended in an exception)
