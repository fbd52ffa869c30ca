"""Positional encodings: sinusoidal (Vaswani et al.), learned (here: seeded random), rotary
(RoPE), or none.

PE[pos, 2i] = sin(pos / 10000^(2i/d)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/d)).
The first two are added to the token embeddings; RoPE instead rotates each (2i, 2i+1) pair of
a head's query and key by the angle pos · 10000^(-2i/d_head), so q·k depends only on the offset
between the two positions. Without any of them self-attention is permutation-equivariant:
shuffle the tokens and the outputs shuffle the same way.
`rope_angles` is the one RoPE angle table: `rope` (the rotation) and `rope_table` (its heatmap)
both read it.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

ENCODINGS = ("sinusoidal", "learned", "rope", "none")


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
    """The (max_len, d_model) table added to the embeddings; zeros for "rope" and "none"."""
    if name == "sinusoidal":
        return sinusoidal(max_len, d_model)
    if name == "learned":
        return learned(max_len, d_model, seed)
    if name in ("rope", "none"):
        return np.zeros((max_len, d_model), dtype=np.float32)
    raise ValueError(f"unknown positional encoding {name!r}; choose one of {', '.join(ENCODINGS)}")


def rope_angles(positions: int | np.ndarray, d_head: int, base: float = 10_000.0) -> np.ndarray:
    """RoPE's one angle table, float64: (T, d_head // 2) angles pos · base^(-2i/d_head) for
    positions 0..T-1 (an int T) or the given positions (T,)."""
    pos = np.arange(positions) if np.ndim(positions) == 0 else np.asarray(positions)
    freqs = np.power(base, -2 * np.arange(d_head // 2) / d_head)  # (d_head/2,)
    return pos.astype(np.float64)[:, None] * freqs[None, :]


def rope_table(max_len: int, d_head: int) -> np.ndarray:
    """(max_len, d_head) view of RoPE for a heatmap: cos and sin of each pair's angle."""
    table = np.zeros((max_len, d_head), dtype=np.float32)
    angles = rope_angles(max_len, d_head)
    table[:, 0 : 2 * angles.shape[1] : 2] = np.cos(angles)
    table[:, 1 : 2 * angles.shape[1] : 2] = np.sin(angles)
    return table


def rope(x: Tensor, positions: Tensor | None = None) -> Tensor:
    """Rotate the (2i, 2i+1) pairs of x (..., T, d) by the angles of `rope_angles`; an odd last
    dimension is left as it is. `positions` (T,) defaults to 0..T-1."""
    t, d = x.shape[-2], x.shape[-1]
    half = d // 2
    pos = t if positions is None else positions.detach().cpu().numpy()
    angles = rope_angles(pos, d)  # (T, d/2) float64
    cos, sin = (torch.from_numpy(f(angles)).to(x.device, x.dtype) for f in (np.cos, np.sin))
    even, odd = x[..., 0 : 2 * half : 2], x[..., 1 : 2 * half : 2]
    out = x.clone()
    out[..., 0 : 2 * half : 2] = even * cos - odd * sin
    out[..., 1 : 2 * half : 2] = even * sin + odd * cos
    return out


def sinusoidal_2d(grid: int, d_model: int) -> np.ndarray:
    """(grid², d_model) table for a grid × grid patch image, row-major: the first half of the
    dimensions encode the patch's row, the second half its column (as ViT / MAE do)."""
    if d_model % 4:
        raise ValueError(f"a 2-D sinusoidal encoding needs d_model divisible by 4; got {d_model}")
    one_axis = sinusoidal(grid, d_model // 2)  # (grid, d/2)
    rows = np.repeat(one_axis, grid, axis=0)  # patch r·grid + c -> row r
    cols = np.tile(one_axis, (grid, 1))  # -> column c
    return np.concatenate([rows, cols], axis=1).astype(np.float32)
