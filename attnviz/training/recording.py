"""A recorded run: one training run's history and snapshots kept as two small files, so that a
lecture replays the run (attnviz.training.replay) instead of training it in front of the class.

    recording = Recording(history, snapshots, "accuracy", 600, "done", "")
    save(stem, recording)      # stem.safetensors (every snapshot's arrays) + stem.json (the rest)
    again = load(stem, VisionSnapshot)  # the same numbers; arrays as NumPy arrays
    thinned(snapshots, 10)     # at most 10 snapshots, the first and the last kept

A snapshot (attnviz.training.snapshot) is kept as its tree: a dict whose leaves are arrays
(nested dicts allowed, e.g. one per model variant), stored under "<index>/<key>/<key>…" in the
safetensors file (no pickle, nothing to run), and read back as the topic's snapshot type.
Its float32 arrays are kept as float16 (HALF: a recording is a few hundred KB, not MB) and read
back as float32: weights and maps to about 3 significant digits, enough to draw them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import load_file, save_file

from attnviz.training.history import History
from attnviz.training.snapshot import Snapshot

SEP = "/"  # between a snapshot's index and its nested keys (a state dict's keys hold dots)
FORMAT = 1  # the JSON's "format": bumped when the layout changes
HALF = np.float16  # how float32 arrays are kept


@dataclass(frozen=True)
class Recording:
    """A finished run as its viewers saw it: the history, the snapshots (step, snapshot), what
    its metric is called, how many steps it had and how it ended."""

    history: History
    snapshots: tuple[tuple[int, Snapshot], ...]
    metric_name: str
    total_steps: int
    status: str  # the run's last RunStatus value ("done", "stopped early", …)
    reason: str
    eval_every: int = 0

    @property
    def last_step(self) -> int:
        """The last step the run reached (its last training step or evaluation)."""
        return max([0, *self.history.step, *self.history.eval_step])


def thinned(snapshots: list[tuple[int, Snapshot]], most: int) -> list[tuple[int, Snapshot]]:
    """At most `most` snapshots, spread evenly over the run, the first and the last kept."""
    if len(snapshots) <= most:
        return list(snapshots)
    picks = np.linspace(0, len(snapshots) - 1, most).round().astype(int)
    return [snapshots[i] for i in sorted(set(picks.tolist()))]


def _flatten(tree: dict, prefix: str, out: dict[str, np.ndarray], half: bool = True) -> None:
    for key, value in tree.items():
        if SEP in str(key):
            raise ValueError(f"a snapshot key may not hold {SEP!r}: {key!r}")
        name = f"{prefix}{SEP}{key}"
        if isinstance(value, dict):
            _flatten(value, name, out, half)
        else:
            array = np.asarray(value)
            kept = array.astype(HALF) if half and array.dtype == np.float32 else array
            # (a copy in C order: np.ascontiguousarray made a 0-d array (1,), which a scalar
            # parameter refused on restore)
            out[name] = np.array(kept, order="C")


def _unflatten(arrays: dict[str, np.ndarray], count: int) -> list[dict]:
    trees: list[dict] = [{} for _ in range(count)]
    for name, array in arrays.items():
        index, *keys = name.split(SEP)
        node = trees[int(index)]
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = array.astype(np.float32) if array.dtype == HALF else array
    return trees


def save(stem: Path, recording: Recording, half: bool = True) -> tuple[Path, Path]:
    """Write `stem`.safetensors and `stem`.json; returns both paths. `half=False` keeps float32
    arrays whole (the test suite's trained runs: tests/support/trained_cache.py)."""
    arrays: dict[str, np.ndarray] = {}
    for index, (_, snapshot) in enumerate(recording.snapshots):
        _flatten(snapshot.tree(), str(index), arrays, half)
    tensors, meta = stem.with_suffix(".safetensors"), stem.with_suffix(".json")
    save_file(arrays, str(tensors))
    about: dict[str, Any] = {
        "format": FORMAT,
        "steps": [step for step, _ in recording.snapshots],
        "history": asdict(recording.history),
        **{k: getattr(recording, k) for k in ("metric_name", "total_steps", "status", "reason")},
        "eval_every": recording.eval_every,
    }
    meta.write_text(json.dumps(about, indent=None, separators=(",", ":")) + "\n")
    return tensors, meta


def load(stem: Path, snapshot_type: type[Snapshot]) -> Recording:
    """The recording written by `save(stem, …)`, its snapshots read back as `snapshot_type`;
    ValueError if its format is another."""
    about = json.loads(stem.with_suffix(".json").read_text())
    if about.get("format") != FORMAT:
        raise ValueError(f"{stem.name}: recording format {about.get('format')}, not {FORMAT}")
    steps = about["steps"]
    trees = _unflatten(load_file(str(stem.with_suffix(".safetensors"))), len(steps))
    return Recording(
        History(**about["history"]),
        tuple(
            (step, snapshot_type.from_tree(tree)) for step, tree in zip(steps, trees, strict=True)
        ),
        about["metric_name"],
        about["total_steps"],
        about["status"],
        about["reason"],
        about["eval_every"],
    )
