"""The circuits experiments' data: sequences with repeated random segments (induction heads),
modular addition's train/validation split (grokking), and the embedding's Fourier spectrum.

Seeded NumPy generators throughout, so a run's data is the same in the page, a test and the
benchmark. Everything here is pure (no model).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Segments:
    """Token ids (N, T) and, over the same (N, T) grid, which *targets* lie in the first copy of
    the repeated segment (after its first token) and which in the second copy (after its first
    token: predictable by copying what followed the earlier occurrence)."""

    ids: np.ndarray
    first: np.ndarray  # bool (N, T)
    repeat: np.ndarray  # bool (N, T)

    def head(self, n: int) -> Segments:
        """The first `n` sequences."""
        return Segments(self.ids[:n], self.first[:n], self.repeat[:n])


def repeated_segments(
    n: int,
    length: int,
    vocab: int,
    seg_min: int,
    seg_max: int,
    seed: int,
    bos: int | None = None,
) -> Segments:
    """`n` sequences of `length` random tokens from 0..vocab-1, each holding one segment of
    seg_min..seg_max distinct tokens followed at once by the same segment again, at a random
    offset (so a one-layer model cannot find the copy by position alone). With `bos`, every
    sequence starts with that token and the rest is `length - 1` tokens long."""
    start = 0 if bos is None else 1
    room = length - start
    if not 2 <= seg_min <= seg_max or 2 * seg_max > room or seg_max > vocab:
        raise ValueError(
            f"segments of {seg_min}..{seg_max} tokens, twice, must fit in {room} positions "
            f"and draw distinct tokens from a vocabulary of {vocab}"
        )
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab, size=(n, length))
    first, repeat = np.zeros((n, length), bool), np.zeros((n, length), bool)
    sizes = rng.integers(seg_min, seg_max + 1, size=n)
    for row, size in enumerate(sizes):
        o = start + int(rng.integers(0, room - 2 * size + 1))
        segment = rng.permutation(vocab)[:size]
        ids[row, o : o + size] = segment
        ids[row, o + size : o + 2 * size] = segment
        first[row, o + 1 : o + size] = True
        repeat[row, o + size + 1 : o + 2 * size] = True
    if bos is not None:
        ids[:, 0] = bos
    return Segments(ids, first, repeat)


def half_repeated(n: int, length: int, vocab: int, seed: int, bos: int | None = None) -> Segments:
    """Probe sequences: the second half repeats the first exactly (after the BOS token, if
    any), so the induction target of a query i in the second half is i − half + 1."""
    start = 0 if bos is None else 1
    half = (length - start) // 2
    return repeated_segments(n, start + 2 * half, vocab, half, half, seed, bos)


def modular_split(p: int, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """All p² pairs (a, b), shuffled by `seed` and split: the first round(fraction · p²) train,
    the rest validate. Returns (train pairs (n, 2), validation pairs (p² − n, 2))."""
    if not 0 < fraction < 1:
        raise ValueError(f"the training fraction must be between 0 and 1, got {fraction}")
    pairs = np.stack(np.meshgrid(np.arange(p), np.arange(p), indexing="ij"), -1).reshape(-1, 2)
    order = np.random.default_rng(seed).permutation(len(pairs))
    n_train = max(1, min(len(pairs) - 1, round(fraction * len(pairs))))
    return pairs[order[:n_train]], pairs[order[n_train:]]


def fourier_spectrum(embedding: np.ndarray) -> np.ndarray:
    """The norm of the DFT of the embedding W_E (p, d) over its p tokens, per frequency
    k = 0..p//2 (frequency k and p − k together: the norm over both). (p//2 + 1,)"""
    p = embedding.shape[0]
    power = np.abs(np.fft.fft(embedding, axis=0)) ** 2  # (p, d)
    per_k = power.sum(1)
    ks = np.arange(p // 2 + 1)
    mirrored = np.where((ks > 0) & (p - ks != ks), per_k[(p - ks) % p], 0.0)
    return np.sqrt(per_k[ks] + mirrored)


def key_frequencies(spectrum: np.ndarray, share: float = 0.8) -> list[int]:
    """The fewest frequencies k ≥ 1 whose power (norm²) adds up to `share` of all power at
    k ≥ 1, largest first: a handful once the network has grokked, most of them before."""
    power = spectrum[1:] ** 2
    if power.sum() <= 0:
        return []
    order = np.argsort(-power, kind="stable")
    cumulative = np.cumsum(power[order]) / power.sum()
    count = int(np.searchsorted(cumulative, share - 1e-12) + 1)
    return [int(k) + 1 for k in order[:count]]
