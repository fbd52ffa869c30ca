"""Head-type scores, one function for every page: how much of each head's attention goes to the
previous token, to the induction target, to the first position (a sink) and to itself; and the
step of a phase change in a loss curve.

Scores average over the queries i ≥ 1 (position 0 of a causal model can only see itself):

    previous-token  weight on i − 1
    induction       weight on every j + 1 with ids[j] == ids[i], j < i (the token after an
                    earlier occurrence of the current token; on a sequence whose second half
                    repeats the first: i − half + 1), over the queries that have one
    sink            weight on position 0
    diagonal        weight on i
"""

from __future__ import annotations

import numpy as np
import torch

SCORE_KINDS = ("previous", "induction", "sink", "diagonal")


def _as_batched(weights, ids) -> tuple[np.ndarray, np.ndarray]:
    """weights (L, H, T, T) or (L, B, H, T, T), ids (T,) or (B, T) -> (L, B, H, T, T), (B, T)."""
    w = weights.detach().cpu().numpy() if isinstance(weights, torch.Tensor) else weights
    i = ids.detach().cpu().numpy() if isinstance(ids, torch.Tensor) else np.asarray(ids)
    w = np.asarray(w, dtype=np.float64)
    if w.ndim == 4:
        w = w[:, None]
    if i.ndim == 1:
        i = i[None]
    if w.ndim != 5 or w.shape[-1] != w.shape[-2] or w.shape[1] != i.shape[0]:
        raise ValueError(
            f"weights must be (L, H, T, T) or (L, B, H, T, T) for ids (T,) or (B, T); "
            f"got {w.shape} and {i.shape}"
        )
    if w.shape[-1] != i.shape[-1]:
        raise ValueError(f"{w.shape[-1]} attention positions but {i.shape[-1]} token ids")
    return w, i


def induction_targets(ids: np.ndarray) -> np.ndarray:
    """(B, T, T) bool: target[b, i, j] when j ≥ 1, j ≤ i and ids[b, j − 1] == ids[b, i]."""
    t = ids.shape[-1]
    same = ids[:, :, None] == ids[:, None, :]  # (B, Tq, Tk): ids[i] == ids[k]
    shifted = np.zeros_like(same)
    shifted[:, :, 1:] = same[:, :, :-1]  # key j is after a k = j − 1 with the same token
    allowed = np.tril(np.ones((t, t), bool))  # j ≤ i
    return shifted & allowed


def head_scores(weights, ids) -> dict[str, np.ndarray]:
    """{"previous", "induction", "sink", "diagonal"} -> (L, H) scores in [0, 1] for attention
    weights (L, H, T, T) of one sequence `ids` (T,), or (L, B, H, T, T) of a batch (B, T)
    (averaged over the batch too). Induction is NaN when no query has an earlier occurrence of
    its token. Tensors or arrays in, arrays out."""
    w, i = _as_batched(weights, ids)
    t = w.shape[-1]
    if t < 2:
        raise ValueError("head scores need at least two positions")
    q = np.arange(1, t)
    out = {
        "previous": w[..., q, q - 1].mean((1, 3)),
        "sink": w[..., q, 0].mean((1, 3)),
        "diagonal": w[..., q, q].mean((1, 3)),
    }
    targets = induction_targets(i)  # (B, T, T)
    has = targets.any(-1)  # (B, T)
    if has.any():
        mass = (w * targets[None, :, None]).sum(-1)  # (L, B, H, T)
        picked = mass.transpose(0, 2, 1, 3)[..., has]  # (L, H, n)
        out["induction"] = picked.mean(-1)
    else:
        out["induction"] = np.full(w.shape[0:1] + w.shape[2:3], np.nan)
    return {name: out[name] for name in SCORE_KINDS}


def phase_change_step(steps, losses, min_drop: float = 0.0) -> int | None:
    """The step at which the loss drops fastest: the middle of the evaluation interval with the
    steepest fall per step. None with fewer than two evaluations, or when that interval's fall
    is not more than `min_drop` (no phase change, only a slow slide)."""
    s, v = np.asarray(steps, dtype=float), np.asarray(losses, dtype=float)
    if len(s) < 2:
        return None
    slope = np.diff(v) / np.maximum(np.diff(s), 1e-12)
    k = int(np.nanargmin(slope))
    if not v[k] - v[k + 1] > max(min_drop, 0.0):
        return None
    return int(round((s[k] + s[k + 1]) / 2))
