"""The bundled lessons' recorded runs (attnviz.lessons.recordings): every step that trains has
its run recorded, no recording is left over, and each recording is the seeded run a person would
train with the step's settings: a live run here, trained to step EXACT_STEPS, gives the
recording's losses and evaluations up to there (to TOLERANCE) and its step-0 snapshot (to KEPT)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from attnviz.lessons.recordings import RECORDINGS, lesson_jobs, recorded
from attnviz.topics import live
from attnviz.topics.scene import Job
from tests.support.same_start import EXACT_STEPS, assert_same_start

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
