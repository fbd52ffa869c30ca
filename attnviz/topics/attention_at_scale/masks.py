"""Masks for long inputs, as boolean (T, T) tensors True where query i may attend to key j (the
convention of attnviz.core.attention and torch's SDPA): full, causal, sliding window, dilated
window, global + local (Longformer); the count of scores a mask computes; and the receptive field
after L layers of masked attention (reachability: the mask composed with itself L times).

A window of width w: token i sees itself and the w − 1 tokens before it (and, when not causal,
the w − 1 after it): 0 ≤ i − j < w causal, |i − j| < w otherwise. Dilated by r: the same w keys
spaced r apart (i − j a multiple of r, at most r(w − 1) away). Global + local: the first g tokens
see every token and every token sees them, plus the window. `causal` ands any mask with j ≤ i.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

MASKS = ("full", "causal", "sliding window", "dilated", "global + local")


def _offsets(t: int) -> Tensor:
    """(T, T) i − j."""
    pos = torch.arange(t)
    return pos[:, None] - pos[None, :]


def window_mask(t: int, w: int, causal: bool = True, dilation: int = 1) -> Tensor:
    """(T, T) bool: i sees j when |i − j| (or i − j ≥ 0, causal) is a multiple of `dilation`
    at most dilation·(w − 1)."""
    if w < 1 or dilation < 1:
        raise ValueError(f"window width and dilation must be ≥ 1, got w={w}, r={dilation}")
    gap = _offsets(t)
    dist = gap.abs()
    mask = (dist <= dilation * (w - 1)) & (dist % dilation == 0)
    return mask & (gap >= 0) if causal else mask


def global_local_mask(t: int, w: int, g: int, causal: bool = True) -> Tensor:
    """(T, T) bool: the window of width w, plus the first g tokens' rows and columns."""
    pos = torch.arange(t)
    mask = window_mask(t, w, causal=False) | (pos[:, None] < g) | (pos[None, :] < g)
    return mask & (_offsets(t) >= 0) if causal else mask


def build_mask(
    kind: str, t: int, w: int = 3, r: int = 2, g: int = 1, causal: bool = False
) -> Tensor:
    """(T, T) bool mask of `kind` (one of MASKS); `causal` ands it with j ≤ i ("causal" is
    causal whatever `causal` says)."""
    if kind == "full":
        mask = torch.ones(t, t, dtype=torch.bool)
    elif kind == "causal":
        return torch.ones(t, t, dtype=torch.bool).tril()
    elif kind == "sliding window":
        mask = window_mask(t, w, causal=False)
    elif kind == "dilated":
        mask = window_mask(t, w, causal=False, dilation=r)
    elif kind == "global + local":
        mask = global_local_mask(t, w, g, causal=False)
    else:
        raise ValueError(f"unknown mask {kind!r}; choose one of {', '.join(MASKS)}")
    return mask & (_offsets(t) >= 0) if causal else mask


def scores_computed(mask: Tensor) -> int:
    """How many query–key scores the mask keeps (per head and layer): its True entries."""
    return int(mask.sum())


def layers_to_reach(mask: Tensor, layers: int) -> Tensor:
    """(T, T) int: the fewest layers (1..layers) after which token i holds information from token
    j (a path i ← … ← j of `mask` edges), 0 where it does not within `layers`. Every token keeps
    its own information (a residual stream), so reach only grows with depth."""
    t = mask.shape[-1]
    step = (mask.bool() | torch.eye(t, dtype=torch.bool)).to(torch.int64)  # (T, T)
    reach = torch.eye(t, dtype=torch.int64)
    first = torch.zeros(t, t, dtype=torch.int64)
    for layer in range(1, layers + 1):
        reach = ((step @ reach) > 0).to(torch.int64)  # compose once more: i ← k ← … ← j
        first = torch.where((first == 0) & (reach > 0), torch.full_like(first, layer), first)
    return first


def reach_back(mask: Tensor, layers: int) -> Tensor:
    """(T,) int: how far back each token t draws information from after `layers` layers: t − the
    earliest token it reaches (0: only itself)."""
    reached = layers_to_reach(mask, layers) > 0  # (T, T)
    t = mask.shape[-1]
    pos = torch.arange(t)
    earliest = torch.where(reached, pos[None, :], torch.full((t, t), t)).amin(dim=1)
    return pos - earliest


def row_counts(kind: str, t: int, w: int = 3, r: int = 2, g: int = 1, causal: bool = False):
    """(T,) int64 NumPy: how many keys each query row of `build_mask(kind, ...)` keeps, in
    O(T) without building the mask (for T up to any length)."""
    i = np.arange(t)
    if kind == "causal" or (kind == "full" and causal):
        return i + 1
    if kind == "full":
        return np.full(t, t)
    step = r if kind == "dilated" else 1
    before = np.minimum(w - 1, i // step)  # window keys before i (dilated: r apart)
    after = 0 if causal else np.minimum(w - 1, (t - 1 - i) // step)
    count = 1 + before + after
    if kind in ("sliding window", "dilated"):
        return count
    if kind != "global + local":
        raise ValueError(f"unknown mask {kind!r}; choose one of {', '.join(MASKS)}")
    low = i - before  # the window's first key; the global keys below it are added
    count = count + np.minimum(g, low)
    return np.where(i < g, i + 1 if causal else t, count)


def count_scores(kind: str, t: int, w: int = 3, r: int = 2, g: int = 1, causal: bool = False):
    """How many scores `build_mask(kind, t, w, r, g, causal)` keeps, without building it."""
    return int(row_counts(kind, t, w, r, g, causal).sum())
