"""Matrices as short URL text ("1,2;3,4") and back, with readable errors for garbled input."""

from __future__ import annotations

import numpy as np


def encode_matrix(matrix: np.ndarray) -> str:
    """Rows separated by ';', entries by ',', in short %g form."""
    return ";".join(",".join(f"{float(v):.4g}" for v in row) for row in np.atleast_2d(matrix))


def decode_matrix(text: str, shape: tuple[int, int]) -> np.ndarray:
    """Parse encode_matrix's text; ValueError says what is wrong (shape, non-number, NaN/inf)."""
    try:
        rows = [[float(v) for v in row.split(",")] for row in text.split(";")]
    except ValueError:
        raise ValueError("it contains something that is not a number") from None
    if len({len(r) for r in rows}) != 1:
        raise ValueError("its rows have different lengths")
    arr = np.array(rows, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"it is {arr.shape[0]} × {arr.shape[1]}, expected {shape[0]} × {shape[1]}")
    if not np.isfinite(arr).all():
        raise ValueError("it contains NaN or infinity")
    return arr


def finite_problem(matrix: np.ndarray, name: str) -> str | None:
    """A message if a hand-edited matrix has empty, NaN or infinite cells, else None."""
    arr = np.asarray(matrix, dtype=np.float64)
    if np.isfinite(arr).all():
        return None
    rows, cols = np.nonzero(~np.isfinite(arr))
    where = ", ".join(f"({r + 1}, {c + 1})" for r, c in list(zip(rows, cols, strict=True))[:5])
    return f"{name} has empty, NaN or infinite cells at row/column {where}: type finite numbers."
