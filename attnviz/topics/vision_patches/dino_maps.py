"""What the real ViT's attention says about a photo (topics.vision_patches.dino's DinoLook): DINO's
maps, the patches that keep 60 % of a map's mass, rollout, mean attention distance, any patch as the
query, the share of a map on the photo's object, and the artifact tokens.

Token layout: the class token at index 0, then the grid² patches in reading order.

- DINO's maps (Caron et al. 2021): the class token's attention over the patches in the last
  layer, one map per head.
- 60 % of the mass (DINO's Fig. 3): a map's weights over the patches, renormalised to sum to 1,
  sorted from largest to smallest; the smallest set of patches whose sum reaches 0.6.
- Artifact tokens (Darcet et al. 2024, "Vision Transformers Need Registers"): in large ViTs
  trained long, a few patches of plain background are recycled as scratch space for global
  information; their norm is several times the others' and the class token's attention spikes
  on them. Here a patch is one when its norm (the residual stream before the final norm) is at
  least NORM_RATIO × the median patch's and the class token's last-layer attention on it (mean
  of the heads) at least SHARE_RATIO × an even share (1 / grid²).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.rollout import rollout
from attnviz.topics.vision_patches.analysis import (
    class_token_map,
    mean_attention_distance,
    token_map,
)

KEEP = 0.6  # DINO's figure keeps the patches holding 60 % of a map's mass
NORM_RATIO = 2.0  # an artifact's norm: at least twice the median patch's
SHARE_RATIO = 5.0  # an artifact's share of the class token's attention: at least 5 × even

Box = tuple[int, int, int, int]  # (first row, last row, first column, last column) on the grid


def class_maps(weights: np.ndarray, grid: int, layer: int = -1) -> np.ndarray:
    """The class token's attention over the patches in `layer`, per head: (L, H, N, N) ->
    (H, grid, grid). Not renormalised (what it gives itself is missing)."""
    return class_token_map(np.asarray(weights)[layer], grid)


def mass_mask(maps: np.ndarray, keep: float = KEEP) -> np.ndarray:
    """(..., g, g) -> bool (..., g, g): for each map, the fewest patches holding `keep` of its
    mass (ties: the earlier patch in reading order first)."""
    maps = np.asarray(maps, dtype=np.float64)
    flat = maps.reshape(*maps.shape[:-2], -1)  # (..., m)
    flat = flat / flat.sum(-1, keepdims=True)
    order = np.argsort(-flat, axis=-1, kind="stable")  # largest first
    ranked = np.take_along_axis(flat, order, -1)
    before = np.cumsum(ranked, -1) - ranked  # mass of the larger patches before each one
    kept_ranked = before < keep  # a patch is needed while the sum before it is short of `keep`
    kept = np.zeros_like(kept_ranked)
    np.put_along_axis(kept, order, kept_ranked, -1)
    return kept.reshape(maps.shape)


def rollout_map(weights: np.ndarray, grid: int) -> np.ndarray:
    """Rollout (core.rollout, all layers) of the class token over the patches: (grid, grid)."""
    return rollout(np.asarray(weights, dtype=np.float64))[0, 1:].reshape(grid, grid)


def attention_distance(weights: np.ndarray, grid: int, patch: int) -> np.ndarray:
    """Mean attention distance in pixels per layer and head (L, H): patch queries and keys only
    (analysis.mean_attention_distance)."""
    return mean_attention_distance(weights, grid, patch, 1)


def query_maps(weights: np.ndarray, layer: int, patch: int, grid: int) -> np.ndarray:
    """Where patch `patch` (reading order) looks in `layer`, per head: (H, grid, grid)."""
    return token_map(np.asarray(weights)[layer], 1 + patch, grid, 1)


def box_share(maps: np.ndarray, box: Box) -> np.ndarray:
    """The share of each map's weight over the patches that falls inside `box`: (..., g, g) ->
    (...)."""
    r0, r1, c0, c1 = box
    maps = np.asarray(maps, dtype=np.float64)
    return maps[..., r0 : r1 + 1, c0 : c1 + 1].sum((-2, -1)) / maps.sum((-2, -1))


def box_pixels(box: Box, patch: int) -> tuple[float, float, float, float]:
    """A grid box as an outline in pixels (x0, y0, x1, y1), as figures.vision draws boxes."""
    r0, r1, c0, c1 = box
    return (c0 * patch - 0.5, r0 * patch - 0.5, (c1 + 1) * patch - 0.5, (r1 + 1) * patch - 0.5)


@dataclass(frozen=True)
class Artifacts:
    """Each patch's two measures and the patches where both are large."""

    share: np.ndarray  # (g, g) class token's last-layer attention, mean of heads, × even share
    norm: np.ndarray  # (g, g) norm before the final LayerNorm, × the median patch's
    found: tuple[int, ...]  # patches (reading order) past both thresholds


def artifacts(weights: np.ndarray, norms: np.ndarray, grid: int) -> Artifacts:
    """weights (L, H, N, N), norms (N,) -> the artifact test on every patch."""
    m = grid * grid
    share = class_maps(weights, grid).mean(0) * m  # (g, g)
    patch_norms = np.asarray(norms, dtype=np.float64)[1:]  # (m,)
    norm = (patch_norms / np.median(patch_norms)).reshape(grid, grid)
    both = (share >= SHARE_RATIO) & (norm >= NORM_RATIO)
    return Artifacts(share, norm, tuple(int(i) for i in np.flatnonzero(both)))
