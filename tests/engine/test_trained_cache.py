"""The suite's kept trained runs (tests/support/trained_cache.py): an entry is used only while the
job, the stop, every file the training loaded and the packages are as they were, and each entry
in tests/trained/ is the run this code trains: a live run of what its test asked for, trained here
to step EXACT_STEPS, gives the entry's losses and evaluations up to there and its step-0 snapshot.
An entry that is not current is not used (its runs train in the session) and is skipped here,
with what changed: record again with `ATTNVIZ_RECORD_TRAINED=1` (the README says how)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import pytest

from attnviz.topics.live import train
from tests.support import trained_cache as cache
from tests.support.same_start import EXACT_STEPS, assert_same_start
from tests.support.trained import preset_job

ENTRIES = sorted(p.name.removesuffix(".deps.json") for p in cache.FOLDER.glob("*.deps.json"))
EXACT = 1e-6  # relative: a kept run's arrays are float32 whole (a recording's are float16)


@pytest.fixture
def job():
    return preset_job("train-transformer", "Copy: causal decoder", every=10_000)


def test_an_entry_is_stale_when_its_job_stop_package_or_a_file_it_loaded_changed(
    job, tmp_path, monkeypatch
):
    monkeypatch.setattr(cache, "ROOT", tmp_path)
    source = tmp_path / "attnviz" / "models" / "mine.py"
    source.parent.mkdir(parents=True)
    source.write_text("WIDTH = 32\n")
    deps = {
        "job": repr(job),
        "stop_at": None,
        "versions": cache.versions(),
        "files": {"attnviz/models/mine.py": hashlib.sha256(b"WIDTH = 32\n").hexdigest()},
    }
    assert cache.stale(deps, job, None) == []
    assert cache.stale(deps, job, 400) == ["the step it stops at"]
    faster = replace(job, train=replace(job.train, lr=job.train.lr * 2))
    assert cache.stale(deps, faster, None) == ["the job"]
    older = deps | {"versions": cache.versions() | {"torch": "2.12.0"}}
    assert cache.stale(older, job, None) == ["a package's version"]
    source.write_text("WIDTH = 64\n")
    cache.digest.cache_clear()  # (a session reads each file once)
    assert cache.stale(deps, job, None) == ["attnviz/models/mine.py"]
    source.unlink()
    assert cache.stale(deps, job, None) == ["attnviz/models/mine.py"]


def test_the_files_a_run_depends_on_are_what_this_process_loaded_with_their_hashes():
    import attnviz.training.trainer as trainer

    files = cache.loaded_files()
    path = cache.ROOT / "attnviz" / "training" / "trainer.py"
    assert trainer.__file__ == str(path)
    assert files["attnviz/training/trainer.py"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert "attnviz/data/fables.txt" in files  # the tasks' text, read rather than imported
    assert not [name for name in files if not name.startswith("attnviz/")]


@pytest.mark.slow
@pytest.mark.parametrize("key", ENTRIES)
def test_a_kept_run_starts_as_the_run_this_code_trains(key):
    deps = json.loads((cache.FOLDER / f"{key}.deps.json").read_text())
    asked = deps["asked"]
    job = preset_job(asked["url"], asked["preset"], asked["every"], **asked["overrides"])
    changed = cache.stale(deps, job, asked["stop_at"])
    if changed:
        pytest.skip(f"not current, so not used (trained in the session): {changed[:3]}")
    kept = cache.read(key, job)
    upto = min(EXACT_STEPS, kept.history.step[-1])
    assert_same_start(kept, train(job, threads=1, stop_at=upto), upto, rtol=EXACT)
    if asked["stop_at"] is not None and kept.status == "running":  # where its test reads it
        assert kept.snapshots[-1][0] == asked["stop_at"]
    else:
        assert kept.status in ("done", "stopped early"), kept.reason  # not diverged
