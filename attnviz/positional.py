"""Positional encodings: sinusoidal (Vaswani et al.), learned (here: seeded random), or none.

PE[pos, 2i] = sin(pos / 10000^(2i/d)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/d)).
Without any of them self-attention is permutation-equivariant: shuffle the tokens and the
outputs shuffle the same way.
"""

from __future__ import annotations

import numpy as np

ENCODINGS = ("sinusoidal", "learned", "none")


def sinusoidal(max_len: int, d_model: int, base: float = 10_000.0) -> np.ndarray:
    """(max_len, d_model) table of the sinusoidal encoding."""
    pos = np.arange(max_len)[:, None]
    i = np.arange(d_model)[None, :]
    angle = pos / np.power(base, (2 * (i // 2)) / d_model)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle)).astype(np.float32)


def learned(max_len: int, d_model: int, seed: int = 0) -> np.ndarray:
    """A stand-in for a learned table: seeded random vectors of the same scale as sinusoidal."""
    return np.random.default_rng(seed + 7).normal(0, 0.7, (max_len, d_model)).astype(np.float32)


def encoding(name: str, max_len: int, d_model: int, seed: int = 0) -> np.ndarray:
    """The named table; "none" is all zeros."""
    if name == "sinusoidal":
        return sinusoidal(max_len, d_model)
    if name == "learned":
        return learned(max_len, d_model, seed)
    if name == "none":
        return np.zeros((max_len, d_model), dtype=np.float32)
    raise ValueError(f"unknown positional encoding {name!r}; choose one of {', '.join(ENCODINGS)}")
