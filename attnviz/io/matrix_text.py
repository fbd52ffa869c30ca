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
