"""Serialise named matrices for download: CSV blocks and JSON (non-finite values become null).

Each matrix may carry its row and column labels (token labels, "query 0", ...): `labels` maps a
matrix's name to (row labels, column labels). A labelled CSV block has a header row (the corner
cell names the two axes) and the row label in its first column; JSON gets "rows" and "columns"."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

import numpy as np

Labels = dict[str, tuple[Sequence[str], Sequence[str]]]


def _clean(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _inert(label: str) -> str:
    """A label a spreadsheet will not run as a formula (a typed token may start with "=")."""
    return "'" + label if label[:1] in ("=", "+", "-", "@", "\t", "\r") else label


def _labels_for(name: str, shape: tuple[int, int], labels: Labels | None):
    """(rows, columns) as strings, checked against the matrix's shape; None when not given."""
    if not labels or name not in labels:
        return None
    rows, cols = ([str(s) for s in part] for part in labels[name])
    if (len(rows), len(cols)) != shape:
        raise ValueError(
            f"labels of '{name}' are {len(rows)} × {len(cols)}, the matrix is "
            f"{shape[0]} × {shape[1]}"
        )
    return rows, cols


def matrices_to_json(named: dict[str, np.ndarray], labels: Labels | None = None) -> str:
    """{"name": {"shape": [...], "values": nested lists[, "rows": [...], "columns": [...]]}};
    −∞ and NaN are written as null."""
    out = {}
    for name, matrix in named.items():
        arr = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
        entry = {"shape": list(arr.shape), "values": [[_clean(v) for v in row] for row in arr]}
        found = _labels_for(name, arr.shape, labels)
        if found:
            entry["rows"], entry["columns"] = found
        out[name] = entry
    return json.dumps(out, indent=1, ensure_ascii=False)


def matrices_to_csv(named: dict[str, np.ndarray], labels: Labels | None = None) -> str:
    """Each matrix as a block: a `# name [r x c]` line, then its rows; blank line between.

    With labels for a matrix its block is a labelled table (read it with the csv module): a
    header row `row \\ column, col 0, col 1, ...` and each row's label first. Without, the rows
    are bare numbers (np.loadtxt reads the block)."""
    buf = io.StringIO()
    for name, matrix in named.items():
        arr = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
        buf.write(f"# {name} [{arr.shape[0]} x {arr.shape[1]}]\n")
        found = _labels_for(name, arr.shape, labels)
        if found is None:
            np.savetxt(buf, arr, delimiter=",", fmt="%.6g")
        else:
            rows, cols = found
            writer = csv.writer(buf, lineterminator="\n")
            writer.writerow(["row \\ column", *map(_inert, cols)])
            for label, row in zip(rows, arr, strict=True):
                writer.writerow([_inert(label), *(f"{v:.6g}" for v in row)])
        buf.write("\n")
    return buf.getvalue()


def array_to_npy(array: np.ndarray) -> bytes:
    """The array in NumPy's .npy format (no pickle: allow_pickle is irrelevant for numeric data)."""
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()
