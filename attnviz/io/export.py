"""Serialise named matrices for download: CSV blocks and JSON (non-finite values become null)."""

from __future__ import annotations

import io
import json

import numpy as np


def _clean(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def matrices_to_json(named: dict[str, np.ndarray]) -> str:
    """{"name": {"shape": [...], "values": nested lists}}; −∞ and NaN are written as null."""
    out = {}
    for name, matrix in named.items():
        arr = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
        out[name] = {"shape": list(arr.shape), "values": [[_clean(v) for v in row] for row in arr]}
    return json.dumps(out, indent=1)


def matrices_to_csv(named: dict[str, np.ndarray]) -> str:
    """Each matrix as a block: a `# name [r x c]` line, then its rows; blank line between."""
    buf = io.StringIO()
    for name, matrix in named.items():
        arr = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
        buf.write(f"# {name} [{arr.shape[0]} x {arr.shape[1]}]\n")
        np.savetxt(buf, arr, delimiter=",", fmt="%.6g")
        buf.write("\n")
    return buf.getvalue()


def array_to_npy(array: np.ndarray) -> bytes:
    """The array in NumPy's .npy format (no pickle: allow_pickle is irrelevant for numeric data)."""
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()
