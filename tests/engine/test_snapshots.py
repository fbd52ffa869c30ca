"""Every training page's snapshots are one kind of value (issue 52, item 3): the frozen dataclass
its spec names (`spec.snapshot_type`), holding arrays, numbers and dicts of them only, so that it
pickles to a worker and back and a recording keeps it as safetensors and reads it back typed.
The pages are enumerated from the registry: a new training page is covered without a new test."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from attnviz.topics import live
from attnviz.topics.registry import scene, scene_urls
from attnviz.training.history import History
from attnviz.training.recording import Recording, load, save
from attnviz.training.snapshot import Snapshot

TRAINING = [url for url in scene_urls() if scene(url).trains]


def leaves(value, path: str = "") -> list[tuple[str, object]]:
    """(path, leaf) of a snapshot's tree: dicts opened, everything else a leaf."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in leaves(item, f"{path}/{key}")]
    return [(path, value)]


def test_every_training_page_is_covered():
    assert len(TRAINING) >= 7, TRAINING


@pytest.mark.parametrize("url", TRAINING)
def test_a_pages_snapshot_is_its_specs_frozen_dataclass_of_arrays(url, tmp_path):
    page = scene(url)
    spec = page.config(page.values({})).spec
    snap = live.untrained(spec)
    assert type(snap) is spec.snapshot_type and isinstance(snap, Snapshot)
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.__setattr__(dataclasses.fields(snap)[0].name, None)
    found = leaves(snap.tree())
    kinds = {path: type(leaf) for path, leaf in found}
    odd = {p: k for p, k in kinds.items() if not issubclass(k, np.ndarray | float | int)}
    assert odd == {}, "a snapshot holds arrays and numbers only"
    again = pickle.loads(pickle.dumps(snap))  # to a worker process and back
    assert type(again) is type(snap)
    for (path, mine), (_, theirs) in zip(found, leaves(again.tree()), strict=True):
        np.testing.assert_array_equal(np.asarray(theirs), np.asarray(mine), err_msg=path)
    save(tmp_path / "run", Recording(History(), ((0, snap),), "metric", 1, "done", ""))
    (step, read), *_ = load(tmp_path / "run", spec.snapshot_type).snapshots
    assert step == 0 and type(read) is type(snap)
    assert sorted(p for p, _ in leaves(read.tree())) == sorted(p for p, _ in found)
    spec.restore(read)  # a recorded snapshot restores as a live one does


def test_a_tree_of_other_fields_is_refused():
    specs = [scene(url).config(scene(url).values({})).spec for url in TRAINING]
    snap = next(s for s in map(live.untrained, specs) if len(dataclasses.fields(s)) > 1)
    tree = snap.tree()
    tree.pop(next(iter(tree)))
    with pytest.raises(ValueError, match="holds"):
        type(snap).from_tree(tree)


@pytest.mark.parametrize("url", TRAINING)
def test_a_snapshot_is_restored_once_however_often_its_views_are_drawn(url, monkeypatch):
    """A rerun that moves no training setting (a view's widget, the next rerun) restores the
    snapshot's models no more: one restore per snapshot and spec (live.restored)."""
    page = scene(url)
    values = page.values({})
    job = page.config(values)
    restores = []
    restore = type(job.spec).restore

    def counted(spec, snapshot):
        restores.append(snapshot)
        return restore(spec, snapshot)

    monkeypatch.setattr(type(job.spec), "restore", counted)
    monkeypatch.setattr(live, "_RESTORED", type(live._RESTORED)())  # nothing restored before
    result = page.run(job)
    for _ in range(3):  # three reruns
        page.views(result, values)
    snapshot = result.last[1] if isinstance(result, live.RunSoFar) else result
    for _ in range(2):
        assert live.restored(job.spec, snapshot) is live.restored(job.spec, snapshot)
    assert [id(s) for s in restores] == [id(snapshot)]
    copy = pickle.loads(pickle.dumps(snapshot))  # another snapshot object: restored afresh
    assert live.restored(job.spec, copy) is not live.restored(job.spec, snapshot)
    assert len(restores) == 2
