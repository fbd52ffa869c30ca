"""Each trained preset trained once per test session and shared by every test that needs it.

    def test_reverse_learns(trained):
        run = trained("train-transformer", "Reverse: 1 layer, 1 head")   # live.TrainedRun
        run.history.val_metric[-1], run.restore() ...

A preset is trained by its page's scene (`scene.config(values)` → Job → `live.train`), seeded as
the page trains it, on one thread. Under pytest-xdist the workers share the result through a file
in the session's shared temporary folder, written once under a file lock, so the two workers
never train the same preset twice. Overrides (`steps=200`) name other runs.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from attnviz.topics.live import TrainedRun, train
from attnviz.topics.registry import scene


def train_preset(url: str, preset: str, **overrides: Any) -> TrainedRun:
    """Train page `url`'s preset (with `overrides` over its values) to its end, here."""
    page = scene(url)
    values = page.values(page.table.preset(preset) | overrides)
    return train(page.config(values), threads=1)


def _shared_folder(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent  # xdist: the workers' common parent


@pytest.fixture(scope="session")
def trained(tmp_path_factory, worker_id):
    """`trained(url, preset, **overrides) -> TrainedRun`, trained at most once per session."""
    folder = _shared_folder(tmp_path_factory, worker_id)
    memo: dict[str, TrainedRun] = {}

    def get(url: str, preset: str, **overrides: Any) -> TrainedRun:
        name = repr((url, preset, sorted(overrides.items())))
        key = hashlib.sha1(name.encode()).hexdigest()[:16]
        if key not in memo:
            path = folder / f"trained-{key}.pickle"  # the session's own runs, not user data
            with FileLock(str(path) + ".lock"):
                if not path.exists():
                    path.write_bytes(pickle.dumps(train_preset(url, preset, **overrides)))
                memo[key] = pickle.loads(path.read_bytes())
        return memo[key]

    return get
