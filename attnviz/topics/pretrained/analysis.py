"""Measurements on attention maps: rollout, entropy, distance, head-type labels, Q/K projections,
and one query's scores and weights (for the query/key view).

Entropy and softmax come from core.attention (the engine's one entropy and one softmax).

Rollout (Abnar & Zuidema, 2020) lives in core.rollout and is re-exported here. It is defined on
the full maps: hiding [CLS]/[SEP] is done afterwards, in display only (`visible_part`).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from attnviz.core.attention import masked_softmax, row_entropy, score
from attnviz.core.rollout import rollout as rollout  # re-exported for existing callers


def entropy(attentions: np.ndarray) -> np.ndarray:
    """Mean row entropy in nats (core.attention.row_entropy): (..., T, T) -> (...)."""
    return row_entropy(np.asarray(attentions)).mean(-1)


def query_row(
    q: np.ndarray, keys: np.ndarray, sees_up_to: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """One query's scores q·k_j/√d (T,) and their softmax (T,), which is the model's attention
    row. q (d,), keys (T, d). `sees_up_to`: a causal model's query position i; keys after it
    are masked (weight exactly 0), their scores still given."""
    tq, tk = torch.from_numpy(np.asarray(q)[None]), torch.from_numpy(np.asarray(keys))
    scores = score("dot", tq, tk)[0] / math.sqrt(tq.shape[-1])  # (T,)
    mask = None if sees_up_to is None else torch.arange(len(scores)) <= sees_up_to
    return scores.numpy(), masked_softmax(scores, mask).numpy()


def blank_future(matrix: np.ndarray) -> np.ndarray:
    """A causal map (..., R, S) for drawing: the keys a query cannot see (column j > i + S − R,
    the future) set to NaN, so a figure leaves them blank instead of drawing a weight 0. A
    square map loses its upper triangle; the last rows of a longer sequence keep their prefix."""
    rows, cols = matrix.shape[-2:]
    future = np.arange(cols)[None, :] > np.arange(rows)[:, None] + (cols - rows)
    drawn = np.array(matrix, dtype=np.result_type(np.asarray(matrix).dtype, np.float32))
    drawn[..., future] = np.nan
    return drawn


def mean_distance(attentions: np.ndarray) -> np.ndarray:
    """Mean |i − j| weighted by attention: (..., T, T) -> (...)."""
    t = attentions.shape[-1]
    dist = np.abs(np.arange(t)[:, None] - np.arange(t)[None, :])
    return (attentions * dist).sum(-1).mean(-1)


def head_label(
    weights: np.ndarray, threshold: float = 0.5, mean_entropy: float | None = None
) -> str:
    """What one head (T, T) mostly does, by measured criteria (average weight above threshold).
    `mean_entropy`: the head's `entropy`, when the caller has it already (head_table does)."""
    t = weights.shape[0]
    if t < 2:
        return "self"
    scores = {
        "previous token": np.diagonal(weights, -1).mean(),
        "next token": np.diagonal(weights, 1).mean(),
        "self": np.diagonal(weights).mean(),
        "first-token sink": weights[:, 0].mean(),
        "last-token sink": weights[:, -1].mean(),
    }
    best = max(scores, key=scores.get)
    if scores[best] >= threshold:
        return best
    if (entropy(weights) if mean_entropy is None else mean_entropy) >= 0.8 * np.log(t):
        return "broad"
    return "mixed"


def head_table(attentions: np.ndarray) -> list[dict]:
    """One row per (layer, head): entropy, mean distance and label (the entropies computed once:
    at 512 tokens, once more per head in head_label was 4 s of a rerun)."""
    ent, dist = entropy(attentions), mean_distance(attentions)
    return [
        {
            "layer": layer,
            "head": h,
            "entropy": float(ent[layer, h]),
            "mean distance": float(dist[layer, h]),
            "label": head_label(attentions[layer, h], mean_entropy=float(ent[layer, h])),
        }
        for layer in range(attentions.shape[0])
        for h in range(attentions.shape[1])
    ]


def drop_tokens(attentions: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Remove positions (e.g. [CLS], [SEP]) from rows and columns and renormalise the rows."""
    sub = attentions[..., keep, :][..., keep]
    total = sub.sum(-1, keepdims=True)
    return sub / np.where(total > 0, total, 1.0)


def top_token(tokens: list[str], row: np.ndarray, keep: np.ndarray) -> tuple[str, list[str]]:
    """(the token a query's weight row (T,) weights most among the shown positions `keep` (T,),
    the shown tokens): what a lesson's "which token will it pick?" question compares with."""
    best = int(np.where(keep, row, -np.inf).argmax())
    return tokens[best], [t for t, k in zip(tokens, keep, strict=True) if k]


def visible_part(matrix: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The rows and columns of `keep` (T,) of a (..., T, T) matrix, not renormalised: what is
    left on screen when some tokens are hidden from a quantity computed on all of them."""
    return matrix[..., keep, :][..., keep]


def difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a − b over the common leading positions of two attention sets (..., T, T)."""
    t = min(a.shape[-1], b.shape[-1])
    return a[..., :t, :t] - b[..., :t, :t]


def preload_projections() -> None:
    """Import scikit-learn's PCA and t-SNE (about 2 s), e.g. in a server's warm-up thread, so
    that the first projection does not wait for the import."""
    import sklearn.decomposition  # noqa: F401
    import sklearn.manifold  # noqa: F401


def project_queries_keys(
    queries: np.ndarray, keys: np.ndarray, method: str = "pca", seed: int = 0
) -> np.ndarray:
    """Joint 2-D projection of one head's queries (T, d) and keys (T, d): (2T, 2), queries first."""
    both = np.concatenate([queries, keys]).astype(np.float64)
    if method == "tsne":
        from sklearn.manifold import TSNE

        perplexity = float(max(2, min(30, len(both) // 4)))
        return TSNE(2, perplexity=perplexity, random_state=seed, init="pca").fit_transform(both)
    from sklearn.decomposition import PCA

    return PCA(2, random_state=seed).fit_transform(both)


def value_weighted(attention: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """What flows rather than where a head looks: α_ij ‖W_O v_j‖ normalised per row (..., T, T),
    from weights (..., T, T) and the lengths of what each head moves from each token (..., T)."""
    moved = attention * norms[..., None, :]  # (..., T, T)
    rows = moved.sum(-1, keepdims=True)
    return np.divide(moved, rows, out=np.zeros_like(moved), where=rows > 0)
