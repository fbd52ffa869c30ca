"""A training run's snapshot: what one step of a run keeps (weights, a few maps, numbers), as a
frozen dataclass of the topic that trained it.

    @dataclass(frozen=True, eq=False)
    class VisionSnapshot(Snapshot):
        vit: Arrays        # a state dict: parameter name -> array
        cnn: Arrays
        distance: np.ndarray  # (L, H)

    snap.tree()                     # {"vit": {...}, "cnn": {...}, "distance": array}
    VisionSnapshot.from_tree(tree)  # back (a recording's arrays: attnviz.training.recording)

Fields are NumPy arrays, numbers or dicts of them (nothing that runs code), so a snapshot pickles
to a worker process and back and a recording keeps it as safetensors. Equality and hashing are
by identity (`eq=False`): arrays have no truth value to compare, and a cache of what a snapshot
restores keys on the snapshot itself.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

import numpy as np

Arrays = dict[str, np.ndarray]  # a state dict: parameter name -> its array
S = TypeVar("S", bound="Snapshot")


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The base of each training topic's snapshot (a frozen dataclass of arrays)."""

    def tree(self) -> dict[str, Any]:
        """The fields by name (dicts of arrays stay dicts): what a recording writes."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_tree(cls: type[S], tree: dict[str, Any]) -> S:
        """The snapshot whose `tree()` this is (a recording read back)."""
        names = {f.name for f in fields(cls)}
        if set(tree) != names:
            raise ValueError(f"{cls.__name__} holds {sorted(names)}, not {sorted(tree)}")
        return cls(**tree)
