"""A recorded run (attnviz.training.recording) and its replay (attnviz.training.replay): the files
give back the same numbers, and a replay shows the run as it stood at the step its clock has
reached, pauses, steps, stops and ends as the recorded run ended; all on a made-up run and a
fake clock, no training."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from attnviz.training.history import History
from attnviz.training.messages import Evaluation, RunStatus
from attnviz.training.recording import Recording, load, save, thinned
from attnviz.training.replay import REPLAYED, ReplayJob
from attnviz.training.snapshot import Snapshot


@dataclass(frozen=True, eq=False)
class MadeUp(Snapshot):
    attention: np.ndarray
    variants: dict
    log_width: np.ndarray
    count: np.ndarray


def made_up_run() -> Recording:
    """100 steps, an evaluation every 25, a snapshot every 25 (nested, as a variants page's)."""
    history = History()
    for step in range(1, 101):
        history.add_step(step, 1.0 / step)
    for step in range(0, 101, 25):
        history.add_evaluation(Evaluation(step, 2.0 - step / 100, step / 100, step / 200, {}))
    rng = np.random.default_rng(0)
    snapshots = tuple(
        (
            s,
            MadeUp(
                attention=rng.random((2, 3, 3)),  # float64: kept as it is
                variants={"a": {"w.0": rng.random(4).astype(np.float32), "ids": np.arange(3)}},
                log_width=np.full((), s / 100, np.float32),  # a scalar parameter: shape ()
                count=np.asarray(s),  # an int64 scalar (a batch norm's count)
            ),
        )
        for s in range(0, 101, 25)
    )
    return Recording(history, snapshots, "accuracy", 100, "done", "reached the target", 25)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_recording_reads_back_the_same_numbers(tmp_path):
    run = made_up_run()
    tensors, meta = save(tmp_path / "run", run)
    assert tensors.suffix == ".safetensors" and meta.suffix == ".json"
    again = load(tmp_path / "run", MadeUp)
    assert again.history == run.history and again.status == "done"
    assert [s for s, _ in again.snapshots] == [0, 25, 50, 75, 100]
    for (_, mine), (_, read) in zip(run.snapshots, again.snapshots, strict=True):
        assert type(read) is MadeUp
        np.testing.assert_array_equal(read.attention, mine.attention)
        for name in ("log_width", "count"):  # shape () kept (a (1,) was refused on restore)
            got, want = getattr(read, name), getattr(mine, name)
            assert got.shape == () and got == want, (name, got)
        np.testing.assert_array_equal(read.variants["a"]["ids"], mine.variants["a"]["ids"])
        weights = read.variants["a"]["w.0"]  # float32, kept as float16: 3 digits
        assert weights.dtype == np.float32
        np.testing.assert_allclose(weights, mine.variants["a"]["w.0"], rtol=1e-3)
        assert not np.array_equal(weights, mine.variants["a"]["w.0"]), "kept at half"
    assert (again.metric_name, again.total_steps, again.eval_every) == ("accuracy", 100, 25)


def test_thinning_keeps_the_first_and_last_snapshot():
    snaps = [(s, {}) for s in range(0, 1001, 25)]  # 41
    kept = [s for s, _ in thinned(snaps, 12)]
    assert len(kept) == 12 and kept[0] == 0 and kept[-1] == 1000
    assert kept == sorted(set(kept))
    assert thinned(snaps[:5], 12) == snaps[:5]


def test_a_replay_shows_the_run_as_it_stood_at_its_clock():
    clock = Clock()
    job = ReplayJob(made_up_run(), "spec", "config", seconds=10, clock=clock)  # 10 steps a second
    state = job.poll()
    assert (state.status, state.step, len(state.snapshots)) == (RunStatus.RUNNING, 0, 1)
    assert state.reason == REPLAYED and state.steps_per_s == 10
    clock.now += 3.0
    state = job.poll()
    assert state.step == 30 and state.history.step[-1] == 30
    assert state.history.eval_step == [0, 25] and [s for s, _ in state.snapshots] == [0, 25]
    clock.now += 60.0
    state = job.poll()
    assert (state.status, state.step, state.total_steps) == (RunStatus.DONE, 100, 100)
    assert state.reason == f"reached the target ({REPLAYED})" and state.finished


def test_pause_step_resume_and_stop():
    clock = Clock()
    job = ReplayJob(made_up_run(), "spec", "config", seconds=10, clock=clock)
    clock.now += 2.0
    assert job.pause().status == RunStatus.PAUSED and job.state.step == 20
    clock.now += 5.0
    assert job.poll().step == 20, "a paused replay stays where it paused"
    assert job.step().step == 21 and job.state.status == RunStatus.PAUSED
    job.resume()
    clock.now += 1.0
    assert job.poll().step == 31 and job.state.status == RunStatus.RUNNING
    job.stop()
    clock.now += 5.0
    state = job.poll()
    assert (state.status, state.step) == (RunStatus.STOPPED, 31)


def test_a_replay_at_its_end_is_the_trained_run_at_once():
    job = ReplayJob(made_up_run(), "spec", "config", at_end=True, clock=Clock())
    state = job.poll()
    assert state.status == RunStatus.DONE and state.step == 100
    assert [s for s, _ in state.snapshots][-1] == 100 and len(state.history.step) == 100


def test_a_recording_of_another_format_is_refused(tmp_path):
    save(tmp_path / "run", made_up_run())
    meta = tmp_path / "run.json"
    meta.write_text(meta.read_text().replace('"format":1', '"format":99'))
    with pytest.raises(ValueError, match="recording format 99, not 1"):
        load(tmp_path / "run", MadeUp)
