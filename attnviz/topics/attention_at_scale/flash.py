"""FlashAttention's forward pass step by step (Dao et al. 2022, Algorithm 1), and its count of
slow-memory (HBM) traffic beside standard attention's (Algorithm 0).

This module owns the tiled computation with the online softmax: the key/value blocks in the
outer loop, the query blocks in the inner loop, and after each tile (i, j) the running row max
m, the running row sum ℓ (of exp(s − m)) and the output O_i rescaled by exp(m_old − m_new) and
renormalised by ℓ. Block sizes are the paper's, derived from the fast memory's size M (in
numbers): B_c = ⌈M / 4d⌉ key rows, B_r = min(B_c, d) query rows (both at most N). Traffic is
counted in numbers read and written, line by line of each algorithm (initialising O, ℓ, m is
not counted, as in the paper's proof of Theorem 2). NumPy float32 throughout: a tile is a few
dozen numbers, and a whole run must take milliseconds (it reruns on every slider move).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FlashConfig:
    n: int = 16  # sequence length N
    d: int = 4  # head width d
    sram: int = 128  # fast memory M, in numbers
    seed: int = 0

    def problems(self) -> list[str]:
        """Readable reasons this configuration cannot run (empty if it can)."""
        if min(self.n, self.d, self.sram) < 1:
            return ["N, d and M must each be at least 1"]
        return []


@dataclass(frozen=True)
class Traffic:
    """Numbers read from and written to slow memory (HBM)."""

    reads: int
    writes: int

    @property
    def total(self) -> int:
        return self.reads + self.writes


@dataclass(frozen=True)
class TileState:
    """The state in slow memory after tile (i, j): query block i against key block j."""

    i: int  # query block
    j: int  # key block
    rows: tuple[int, int]  # query rows [start, stop)
    cols: tuple[int, int]  # key rows [start, stop)
    m: np.ndarray  # (N,) running row max, −inf where a row has seen no key yet
    ell: np.ndarray  # (N,) running ℓ = Σ exp(s − m)
    out: np.ndarray  # (N, d) output so far (rows normalised by their own ℓ)
    traffic: Traffic  # slow-memory traffic so far, this tile included


@dataclass(frozen=True)
class FlashRun:
    config: FlashConfig
    block_r: int  # B_r query rows a tile
    block_c: int  # B_c key rows a tile
    q: np.ndarray  # (N, d)
    k: np.ndarray  # (N, d)
    v: np.ndarray  # (N, d)
    scores: np.ndarray  # (N, N) S = QKᵀ/√d (for the picture: never in slow memory here)
    tiles: list[TileState]
    out: np.ndarray  # (N, d) the tiled output
    standard_out: np.ndarray  # (N, d) softmax(S) V computed at once
    traffic: Traffic  # tiled, whole run
    standard_traffic: Traffic

    @property
    def max_error(self) -> float:
        return float(np.abs(self.out - self.standard_out).max())


def block_sizes(n: int, d: int, sram: int) -> tuple[int, int]:
    """(B_r, B_c) of Algorithm 1 line 1: B_c = ⌈M/4d⌉, B_r = min(⌈M/4d⌉, d), both ≤ N."""
    b_c = math.ceil(sram / (4 * d))
    return min(b_c, d, n), min(b_c, n)


def standard_traffic(n: int, d: int) -> Traffic:
    """Algorithm 0: read Q, K, write S; read S, write P; read P, V, write O (N×N S and P)."""
    reads = 2 * n * d + n * n + (n * n + n * d)
    writes = n * n + n * n + n * d
    return Traffic(reads, writes)


def standard_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(QKᵀ/√d) V at once: (N, d)."""
    s = q @ k.T / np.float32(math.sqrt(q.shape[1]))  # (N, N)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v


def _update(q_i, k_j, v_j, m_i, l_i, o_i, scale):
    """Lines 9–12 for one tile: the new (m_i, ℓ_i, O_i) of the block's rows."""
    s = q_i @ k_j.T * scale  # (B_r, B_c)
    m_tile = s.max(axis=1)  # (B_r,)
    p = np.exp(s - m_tile[:, None])  # (B_r, B_c)
    l_tile = p.sum(axis=1)
    m_new = np.maximum(m_i, m_tile)
    old, new = np.exp(m_i - m_new), np.exp(m_tile - m_new)  # exp(−inf) = 0 on the first tile
    l_new = old * l_i + new * l_tile
    o_new = ((l_i * old)[:, None] * o_i + new[:, None] * (p @ v_j)) / l_new[:, None]
    return m_new, l_new, o_new


def flash_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, block_r: int, block_c: int):
    """Algorithm 1 over (N, d) float32 inputs. Returns (tiles, output (N, d), traffic)."""
    n, d = q.shape
    scale = np.float32(1 / math.sqrt(d))
    m = np.full(n, -np.inf, dtype=np.float32)  # line 2, in slow memory
    ell = np.zeros(n, dtype=np.float32)
    o = np.zeros((n, d), dtype=np.float32)
    reads = writes = 0
    tiles = []
    for j, c0 in enumerate(range(0, n, block_c)):  # line 5: key/value blocks outside
        c1 = min(c0 + block_c, n)
        reads += 2 * (c1 - c0) * d  # line 6: K_j, V_j
        for i, r0 in enumerate(range(0, n, block_r)):  # line 7: query blocks inside
            r1 = min(r0 + block_r, n)
            rows = slice(r0, r1)
            reads += 2 * (r1 - r0) * d + 2 * (r1 - r0)  # line 8: Q_i, O_i, ℓ_i, m_i
            m[rows], ell[rows], o[rows] = _update(
                q[rows], k[c0:c1], v[c0:c1], m[rows], ell[rows], o[rows], scale
            )
            writes += (r1 - r0) * d + 2 * (r1 - r0)  # lines 12–13: O_i, ℓ_i, m_i
            traffic = Traffic(reads, writes)
            tiles.append(
                TileState(i, j, (r0, r1), (c0, c1), m.copy(), ell.copy(), o.copy(), traffic)
            )
    return tiles, o, Traffic(reads, writes)


def inputs(config: FlashConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V (N, d) float32, standard normal from the seed."""
    rng = np.random.default_rng(config.seed)
    q, k, v = rng.standard_normal((3, config.n, config.d), dtype=np.float32)
    return q, k, v


@functools.lru_cache(maxsize=16)
def run_flash(config: FlashConfig) -> FlashRun:
    """The whole tiled run of `config` and the standard one beside it (cached: read only)."""
    problems = config.problems()
    if problems:
        raise ValueError("; ".join(problems))
    q, k, v = inputs(config)
    b_r, b_c = block_sizes(config.n, config.d, config.sram)
    tiles, out, traffic = flash_forward(q, k, v, b_r, b_c)
    scores = q @ k.T / np.float32(math.sqrt(config.d))  # (N, N)
    return FlashRun(
        config,
        b_r,
        b_c,
        q,
        k,
        v,
        scores,
        tiles,
        out,
        standard_attention(q, k, v),
        traffic,
        standard_traffic(config.n, config.d),
    )
