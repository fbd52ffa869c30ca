"""The train-transformer page's "Try this" items, performed on the presets trained as the page
trains them (its scene's job, run here to its end: tests/support/trained.py; the page runs the
same Trainer in a worker), and what each says checked."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics.live import TrainedRun

pytestmark = pytest.mark.slow

PAGE = "train-transformer"
REVERSE, COPY = "Reverse: 1 layer, 1 head", "Copy: causal decoder"


def snapshot_at(run: TrainedRun, step: int) -> np.ndarray:
    """The probe's attention (L, H, T, T) at a snapshot step."""
    return dict(run.snapshots)[step].attention


def row_entropy(maps: np.ndarray) -> float:
    """Mean entropy (nats) of the attention rows; log T is uniform."""
    return float(-(maps * np.log(maps + 1e-12)).sum(-1).mean())


def is_anti_diagonal(square: np.ndarray) -> bool:
    """Row i's largest weight is at column T−1−i, for every row."""
    t = len(square)
    return bool((square.argmax(-1) == np.arange(t)[::-1]).all())


@pytest.fixture
def reverse_run(trained) -> TrainedRun:
    """The reverse preset trained for 500 steps (seed 0, as the page's default)."""
    return trained(PAGE, REVERSE, tt_steps=500)


@pytest.mark.try_this("train-transformer", 1)
def test_reverse_blurry_first_then_the_anti_diagonal(reverse_run):
    """Item 1: blurry for a few hundred steps, the anti-diagonal around step 400, 100 %."""
    t = snapshot_at(reverse_run, 0).shape[-1]
    early = snapshot_at(reverse_run, 200)[0, 0]  # (T, T)
    assert not is_anti_diagonal(early)
    assert row_entropy(early) > 0.9 * np.log(t), "still blurry at step 200"
    first = next(
        step for step, snap in reverse_run.snapshots if is_anti_diagonal(snap.attention[0, 0])
    )
    assert 300 <= first <= 500, f"the anti-diagonal first appears at step {first}"
    assert is_anti_diagonal(snapshot_at(reverse_run, 500)[0, 0])
    assert reverse_run.history.val_metric[-1] >= 0.99, reverse_run.history.val_metric[-1]


@pytest.mark.try_this("train-transformer", 2)
def test_timeline_goes_from_blurry_to_sharp(reverse_run):
    """Item 2: the first snapshot's rows are near uniform, the trained ones far sharper."""
    first, last = reverse_run.snapshots[0], reverse_run.snapshots[-1]
    t = first[1].attention.shape[-1]
    assert first[0] == 0 and last[0] == 500
    assert row_entropy(first[1].attention) > 0.95 * np.log(t), "near uniform at step 0"
    assert row_entropy(last[1].attention) < 0.6 * row_entropy(first[1].attention)


@pytest.mark.try_this("train-transformer", 3)
def test_copy_looks_back_t_places_after_the_separator(trained):
    """Item 3: in layer 1, most rows from '|' (position T) on put their largest weight on the
    digit they must write next, T places back."""
    run = trained(PAGE, COPY, tt_steps=800)
    maps = run.snapshots[-1][1].attention  # (L, H, 2T, 2T)
    t = maps.shape[-1] // 2
    rows = np.arange(t, 2 * t)
    hits = int((maps[1, 0, rows].argmax(-1) == rows - t).sum())
    assert hits > t / 2, f"{hits} of {t} rows look T places back"
    assert run.history.val_metric[-1] >= 0.95


@pytest.mark.try_this("train-transformer", 4)
def test_reverse_without_positions_stalls(reverse_run, trained):
    """Item 4: positions none never get past ~30 %; learned positions reach 100 % (item 1)."""
    run = trained(PAGE, REVERSE, tt_steps=800, tt_pos="none")
    best = max(run.history.val_metric)
    assert best < 0.4, f"validation accuracy reached {best:.1%} without positions"
    assert reverse_run.history.val_metric[-1] >= 0.99
