"""Measurements on a vision model: where its attention goes over the patch grid, how far it
reaches, which pixels move its answer, how much of the image one CNN unit sees, its worst
mistakes.

Token layout (models.vit): n_special tokens first (1 = the class token, 0 with mean pooling),
then the m = grid² patches in row-major order, so patch (r, c) is token n_special + r·grid + c.
Pure NumPy, except `saliency`, which differentiates a torch model. Rollout is core.rollout's.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.rollout import rollout as rollout  # re-exported: the page's one rollout


def patch_index(row: int, col: int, grid: int, n_special: int) -> int:
    """Token index of the patch at (row, col) of the grid."""
    return n_special + row * grid + col


def patch_centres(grid: int, patch: int) -> np.ndarray:
    """(m, 2) pixel coordinates (y, x) of each patch's centre, row-major."""
    rows, cols = np.divmod(np.arange(grid * grid), grid)  # (m,), (m,)
    return (np.stack([rows, cols], axis=1) + 0.5) * patch  # (m, 2)


def patch_distances(grid: int, patch: int) -> np.ndarray:
    """(m, m) Euclidean distance in pixels between patch centres."""
    centres = patch_centres(grid, patch)  # (m, 2)
    diff = centres[:, None, :] - centres[None, :, :]  # (m, m, 2)
    return np.sqrt((diff**2).sum(-1))


def mean_attention_distance(
    weights: np.ndarray, grid: int, patch: int, n_special: int
) -> np.ndarray:
    """Mean attention distance (Dosovitskiy et al. 2020, Fig. 7): the distance in pixels between
    a patch query and the patches it attends to, weighted by attention, averaged over queries.
    weights (..., N, N) -> (...). Special tokens are dropped as queries and keys."""
    sub = np.asarray(weights)[..., n_special:, n_special:]  # (..., m, m), a view
    # Σ_j w_ij d_ij / Σ_j w_ij: each row renormalised over the patch keys, without making the
    # renormalised copy (a snapshot reads 64 images × layers × heads: 0.97 s that way on the
    # shapes' 257 tokens, 0.05 s this way); a row with no weight on any patch gives 0
    weighted = np.einsum("...ij,ij->...i", sub, patch_distances(grid, patch), dtype=np.float64)
    total = sub.sum(-1, dtype=np.float64)  # (..., m)
    return (weighted / np.where(total > 0, total, 1.0)).mean(-1)


def token_map(weights: np.ndarray, query: int, grid: int, n_special: int) -> np.ndarray:
    """One query's attention over the patches as an image-shaped grid: (..., N, N) ->
    (..., grid, grid). Not renormalised: what the query gives the class token is missing."""
    row = np.asarray(weights)[..., query, n_special:]  # (..., m)
    return row.reshape(*row.shape[:-1], grid, grid)


def class_token_map(weights: np.ndarray, grid: int) -> np.ndarray:
    """The class token's (query 0) attention over the patches: (..., N, N) -> (..., grid, grid)."""
    return token_map(weights, 0, grid, 1)


def upsample(grid_map: np.ndarray, patch: int) -> np.ndarray:
    """(..., g, g) -> (..., g·p, g·p): each cell repeated over its patch's pixels."""
    return np.repeat(np.repeat(np.asarray(grid_map), patch, axis=-2), patch, axis=-1)


def saliency(model: nn.Module, image: Tensor, target: int | None = None) -> np.ndarray:
    """Gradient saliency: |∂ logit_target / ∂ pixel|, max over channels, scaled to [0, 1].
    image (C, H, W) -> (H, W). target defaults to the predicted class. The model runs in its
    current mode; parameter gradients are left untouched (torch.autograd.grad on the input only)."""
    x = image.detach()[None].clone().requires_grad_(True)  # (1, C, H, W)
    with torch.enable_grad():
        logits = model(x)  # (1, K)
        k = int(logits[0].argmax()) if target is None else int(target)
        (grad,) = torch.autograd.grad(logits[0, k], x)  # (1, C, H, W)
    out = grad[0].abs().amax(0).double().cpu().numpy()  # (H, W)
    top = out.max()
    return out / top if top > 0 else out


def receptive_field(layers: list[tuple[int, int]]) -> int:
    """Side in pixels of what one output unit sees, from each layer's (kernel, stride):
    r ← r + (k − 1)·j, j ← j·s, starting from r = j = 1."""
    r, jump = 1, 1
    for kernel, stride in layers:
        r += (kernel - 1) * jump
        jump *= stride
    return r


def misclassified(
    logits: np.ndarray | Tensor, labels: np.ndarray | Tensor, limit: int
) -> list[int]:
    """Indices of wrong predictions, most confident first (highest softmax probability of the
    predicted class; ties by index), at most `limit`. logits (N, K), labels (N,)."""
    if isinstance(logits, Tensor):
        logits = logits.detach().cpu().numpy()
    if isinstance(labels, Tensor):
        labels = labels.detach().cpu().numpy()
    z = np.asarray(logits, dtype=np.float64)  # (N, K)
    z = z - z.max(-1, keepdims=True)
    confidence = 1.0 / np.exp(z).sum(-1)  # (N,) softmax of the top logit (z_top = 0)
    wrong = np.flatnonzero(z.argmax(-1) != np.asarray(labels))
    order = wrong[np.argsort(-confidence[wrong], kind="stable")]
    return [int(i) for i in order[: max(limit, 0)]]
