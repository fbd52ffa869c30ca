"""Each trained preset trained once per test session and shared by every test that needs it.

    def test_reverse_learns(trained):
        run = trained("train-transformer", "Reverse: 1 layer, 1 head")   # live.TrainedRun
        run.history.val_metric[-1], run.restore() ...

A preset is trained by its page's scene (`scene.config(values)` → Job → `live.train`), seeded as
the page trains it, on one thread (`stop_at=400`: the run as it stands at step 400). Under
pytest-xdist the workers share the result through a file in the session's shared temporary
folder, written once under a file lock, so the two workers never train the same preset twice.
Overrides (`steps=200`) name other runs. A run kept in tests/trained/ for the same job, stop and
code is read instead of trained (tests/support/trained_cache.py).
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from attnviz.topics.live import TrainedRun, train
from attnviz.topics.registry import scene
from attnviz.topics.scene import Job
from tests.support import trained_cache as cache

# `every=FINAL` (longer than any run): evaluated and snapshotted at the start and the end only,
# for tests that read no other step; evaluations change no weight and cost up to a third of a run
FINAL = 10_000


def preset_job(url: str, preset: str, every: int | None = None, **overrides: Any) -> Job:
    """The job page `url` trains for its preset (with `overrides` over its values); `every`:
    evaluate and snapshot every that many steps instead of the page's intervals (a test that
    reads only the end saves the evaluations: they change no weight)."""
    page = scene(url)
    job = page.config(page.values(page.table.preset(preset) | overrides))
    if every:
        job = replace(job, train=replace(job.train, eval_every=every, snapshot_every=every))
    return job


def train_preset(
    url: str, preset: str, stop_at: int | None = None, every: int | None = None, **overrides: Any
) -> TrainedRun:
    """Train page `url`'s preset here, to its end or to step `stop_at` (see `preset_job`)."""
    return train(preset_job(url, preset, every, **overrides), threads=1, stop_at=stop_at)


def _shared_folder(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent  # xdist: the workers' common parent


@pytest.fixture(scope="session")
def trained(tmp_path_factory, worker_id):
    """`trained(url, preset, stop_at=None, every=None, **overrides) -> TrainedRun`, trained at
    most once per session."""
    folder = _shared_folder(tmp_path_factory, worker_id)
    memo: dict[str, TrainedRun] = {}

    def get(
        url: str, preset: str, stop_at: int | None = None, every: int | None = None, **overrides
    ) -> TrainedRun:
        name = repr((url, preset, stop_at, every, sorted(overrides.items())))
        key = hashlib.sha1(name.encode()).hexdigest()[:16]
        if key not in memo:
            job = preset_job(url, preset, every, **overrides)
            asked = {"url": url, "preset": preset, "stop_at": stop_at, "every": every}
            asked["overrides"] = overrides
            memo[key] = cache.kept(key, job, stop_at) or _trained_once(folder, key, job, asked)
        return memo[key]

    return get


def _trained_once(folder: Path, key: str, job: Job, asked: dict) -> TrainedRun:
    """The run trained here, once for the session's workers (recorded for later sessions when
    tests/support/trained_cache.py's RECORD_ENV is set); `asked`: `trained`'s arguments."""
    stop_at = asked.get("stop_at")
    path = folder / f"trained-{key}.pickle"  # the session's own runs, not user data
    with FileLock(str(path) + ".lock"):
        if not path.exists():
            if cache.recording():
                run = cache.record(key, job, stop_at, asked)
            else:
                run = train(job, threads=1, stop_at=stop_at)
            path.write_bytes(pickle.dumps(run))
        return pickle.loads(path.read_bytes())


def shared_run(folder: Path, name: str, make) -> Any:
    """`make()`'s result, computed once per session under a file lock in `folder` and shared
    through a pickle (the mechanism of `trained`, for runs that are not a page's preset)."""
    key = hashlib.sha1(name.encode()).hexdigest()[:16]
    path = folder / f"trained-{key}.pickle"  # the session's own runs, not user data
    with FileLock(str(path) + ".lock"):
        if not path.exists():
            path.write_bytes(pickle.dumps(make()))
        return pickle.loads(path.read_bytes())


def shared_folder(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The folder the session's workers share (for `shared_run`)."""
    return _shared_folder(tmp_path_factory, worker_id)
