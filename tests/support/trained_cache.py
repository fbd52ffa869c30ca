"""The suite's trained runs kept in the repository, so that a test session trains only the runs
whose code changed (issue 52: the suite within 10 minutes; the presets' training was about 400 of
its 1,360 CPU-seconds).

A run `trained(...)` asks for (tests/support/trained.py) is decided by its job (seeded), where it
stops, the code the training process ran and the packages' versions. An entry in tests/trained/
keeps one such run whole: `<key>.json` and `<key>.safetensors` (attnviz.training.recording's
format, float32 kept as float32) and `<key>.deps.json`, what decided it: the job's repr, the stop,
the SHA-256 of every attnviz file the training process had loaded and of the package's data
files, the versions of Python and the numeric packages. An entry is used only while every one of
those is unchanged (`stale` says what changed); otherwise the run is trained in the test session
as before. So a cached run is the run this code trains, not a stand-in: a change to a model, a
task, the trainer or a preset's settings makes its runs train again.

    ATTNVIZ_RECORD_TRAINED=1 python -m pytest -m slow -p no:randomly   # record what is missing

In that mode a missing or stale run is trained in a fresh process (`python -m
tests.support.trained_cache …`: so that its loaded modules are the training's own, not the test
session's) and kept; the entry read back must equal the run it kept, array for array.
tests/engine/test_trained_cache.py trains every entry's first steps live and compares.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import pickle
import platform
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

import numpy as np

from attnviz.topics.live import TrainedRun, train
from attnviz.topics.scene import Job
from attnviz.training.recording import Recording, load, save
from tests.support.same_start import leaves

ROOT = Path(__file__).parents[2]
FOLDER = ROOT / "tests" / "trained"
PACKAGE = ROOT / "attnviz"
RECORD_ENV = "ATTNVIZ_RECORD_TRAINED"
PACKAGES = ("torch", "numpy", "scikit-learn", "scikit-image", "pillow", "mlxtend")


def recording() -> bool:
    """Whether this session keeps the runs it has to train (RECORD_ENV=1)."""
    return os.environ.get(RECORD_ENV) == "1"


@functools.cache
def digest(path: Path) -> str:
    """A file's SHA-256 (read once per process: the sources do not change during a session)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def versions() -> dict[str, str]:
    """Python's and the numeric packages' versions: what else decides a run's numbers."""
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


def loaded_files() -> dict[str, str]:
    """{path under the repository: SHA-256} of every attnviz module this process loaded, and of
    the package's data files (the fables, the corpus)."""
    paths = {
        Path(module.__file__).resolve()
        for module in list(sys.modules.values())
        if getattr(module, "__file__", None)
    }
    ours = {p for p in paths if PACKAGE in p.parents}
    data = {p for p in (PACKAGE / "data").iterdir() if p.is_file() and p.suffix != ".py"}
    return {str(p.relative_to(ROOT)): digest(p) for p in sorted(ours | data)}


def deciding(job: Job, stop_at: int | None, asked: dict) -> dict:
    """What decided a run trained in this process, to keep beside it, with what a test `asked`
    for (`trained`'s arguments: tests/engine/test_trained_cache.py builds the job again)."""
    return {
        "asked": asked,
        "job": repr(job),
        "stop_at": stop_at,
        "files": loaded_files(),
        "versions": versions(),
    }


def stale(deps: dict, job: Job, stop_at: int | None) -> list[str]:
    """What differs between an entry's `deps` and the job, stop and code of now ([] if none)."""
    changed = []
    if deps.get("job") != repr(job):
        changed.append("the job")
    if deps.get("stop_at") != stop_at:
        changed.append("the step it stops at")
    if deps.get("versions") != versions():
        changed.append("a package's version")
    for name, kept in deps.get("files", {}).items():
        path = ROOT / name
        if not path.is_file() or digest(path) != kept:
            changed.append(name)
    return changed


def kept(key: str, job: Job, stop_at: int | None) -> TrainedRun | None:
    """The entry's run when it is current for `job` and `stop_at`, else None."""
    deps_file = FOLDER / f"{key}.deps.json"
    if not deps_file.is_file() or stale(json.loads(deps_file.read_text()), job, stop_at):
        return None
    return read(key, job)


def read(key: str, job: Job) -> TrainedRun:
    """The run kept under `key`, as `live.train` returned it."""
    run = load(FOLDER / key, job.spec.snapshot_type)
    return TrainedRun(
        job, run.history, list(run.snapshots), run.status, run.reason, run.metric_name
    )


def keep(key: str, run: TrainedRun, deps: dict) -> None:
    """Write the entry: the run (float32 whole) and what decided it."""
    FOLDER.mkdir(exist_ok=True)
    whole = Recording(
        run.history,
        tuple(run.snapshots),
        run.metric_name,
        run.job.train.steps,
        run.status,
        run.reason,
        run.job.train.eval_every,
    )
    save(FOLDER / key, whole, half=False)
    (FOLDER / f"{key}.deps.json").write_text(json.dumps(deps, indent=1, sort_keys=True) + "\n")


def record(key: str, job: Job, stop_at: int | None, asked: dict) -> TrainedRun:
    """Train `job` in a fresh process (its loaded modules are the training's), keep it with what
    a test `asked` for, read it back."""
    with tempfile.TemporaryDirectory() as folder:
        job_file = Path(folder) / "job.pickle"  # the suite's own job, not user data
        job_file.write_bytes(pickle.dumps((job, asked)))
        stop = "-" if stop_at is None else str(stop_at)
        command = [sys.executable, "-m", "tests.support.trained_cache", str(job_file), stop, key]
        subprocess.run(command, cwd=ROOT, check=True)
    return read(key, job)


def same(one: TrainedRun, other: TrainedRun) -> bool:
    """Whether two runs have the same history and snapshots, array for array."""
    if _written(one.history) != _written(other.history):
        return False
    if len(one.snapshots) != len(other.snapshots):
        return False
    for (step, mine), (their_step, theirs) in zip(one.snapshots, other.snapshots, strict=True):
        a, b = leaves(mine.tree()), leaves(theirs.tree())
        if step != their_step or a.keys() != b.keys():
            return False
        if not all(np.array_equal(a[name], b[name]) for name in a):
            return False
    return True


def _written(history) -> str:
    """A history as its JSON (NaN equal to NaN, a tuple to a list)."""
    return json.dumps(asdict(history), sort_keys=True)


def main(job_file: str, stop: str, key: str) -> None:
    """The recording process: train the pickled job on one thread, keep it, check it reads back."""
    job, asked = pickle.loads(Path(job_file).read_bytes())
    stop_at = None if stop == "-" else int(stop)
    run = train(job, threads=1, stop_at=stop_at)
    keep(key, run, deciding(job, stop_at, asked))
    if not same(read(key, job), run):
        raise SystemExit(f"{key}: the kept run does not read back as trained")


if __name__ == "__main__":
    main(*sys.argv[1:])
