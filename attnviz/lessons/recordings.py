"""The bundled lessons' recorded runs: for every lesson step that trains, the same seeded run
trained once by `python -m scripts.record_runs` and kept in lessons/recordings/ (safetensors +
JSON, attnviz.training.recording), so that on the stage Reveal shows the trained model at once
and Start replays the run at a lecture's pace instead of training it (issue 53).

    recorded(job)        # the job's Recording, or None (read once per process)
    lesson_jobs()        # {file stem: (page url, job, [(lesson, step), …])}: every step that trains
    record(job)          # train `job` here to its end and keep at most MOST_SNAPSHOTS snapshots

A recording is found by its job: the spec (on the CPU) and the TrainConfig, hashed. A change to
a lesson's settings or to a spec's fields changes the hash, and tests/engine/test_recordings.py
fails until the runs are recorded again.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import replace
from pathlib import Path

from attnviz.lessons.loader import LESSONS_DIR, bundled_lessons
from attnviz.topics import live, registry
from attnviz.topics.scene import Job
from attnviz.training.recording import Recording, load, thinned
from attnviz.training.snapshot import Snapshot

RECORDINGS = LESSONS_DIR / "recordings"
MOST_SNAPSHOTS = 6  # per recording: the timeline's stops (each holds the models' weights)


def recording_key(job: Job) -> str:
    """The job's name in lessons/recordings/: a hash of its spec (on the CPU) and TrainConfig."""
    cpu = Job(replace(job.spec, device="cpu"), job.train)
    return hashlib.sha256(repr(cpu).encode()).hexdigest()[:16]


def stem(job: Job) -> Path:
    return RECORDINGS / recording_key(job)


def recorded(job: Job) -> Recording | None:
    """The job's recorded run, or None when the lessons hold none for it."""
    return _read(recording_key(job), job.spec.snapshot_type)


@functools.lru_cache(maxsize=64)
def _read(key: str, snapshot_type: type[Snapshot]) -> Recording | None:
    path = RECORDINGS / key
    return load(path, snapshot_type) if path.with_suffix(".json").exists() else None


def lesson_jobs() -> dict[Path, tuple[str, Job, list[tuple[str, int]]]]:
    """Every job a bundled lesson's step would train (a training page's step whose views a run
    changes), by its recording's file stem: (page url, job, the steps that show it)."""
    found: dict[Path, tuple[str, Job, list[tuple[str, int]]]] = {}
    for slug, lesson in bundled_lessons().items():
        for number, step in enumerate(lesson.steps, 1):
            scene = registry.page(step.page).scene
            if scene is None or not scene.trains or set(step.views) <= set(scene.apart_views):
                continue
            job = scene.config(scene.values(step.state()))
            entry = found.setdefault(stem(job), (step.page, job, []))
            entry[2].append((slug, number))
    return found


def record(job: Job) -> Recording:
    """Train `job` here to its end (seeded as the page's run is) and keep it as a Recording."""
    run = live.train(Job(replace(job.spec, device="cpu"), job.train))
    return Recording(
        run.history,
        tuple(thinned(run.snapshots, MOST_SNAPSHOTS)),
        run.metric_name,
        job.train.steps,
        run.status,
        run.reason,
        job.train.eval_every,
    )
