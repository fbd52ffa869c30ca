"""What flows through a head, beside where it looks (Kobayashi et al., 2020, "Attention is not only
a weight"): head h's output at query i is the sum over sources j of α_ij · W_O^h v_j, so a weight
α_ij on a source whose vector W_O^h v_j is near zero moves nothing. The norm-based share
‖α_ij W_O^h v_j‖ / Σ_j' ‖α_ij' W_O^h v_j'‖ shows what does; a sink head's large weight on the
first token, which carries a small vector, shrinks there. NumPy only: the arrays come from the
hooked model's cache (attnviz.api.hooked) and the layer's o_proj weight."""

from __future__ import annotations

import numpy as np


def head_vectors(values: np.ndarray, w_o: np.ndarray, n_heads: int) -> np.ndarray:
    """(H, T, D): each source's value through its head's part of W_O, W_O^h v_j. `values`
    (T, G, d) per key/value head (query heads share them in order, as `repeat_kv` does); `w_o`
    (D, H·d), o_proj's weight."""
    t, groups, d = values.shape
    shared = np.repeat(values, n_heads // groups, axis=1)  # (T, H, d)
    w = w_o.reshape(w_o.shape[0], n_heads, d)  # (D, H, d)
    return np.einsum("Dhd,thd->htD", w, shared)  # (H, T, D)


def contributions(pattern: np.ndarray, vectors: np.ndarray, query: int) -> np.ndarray:
    """(H, T, D): what each source j adds to each head's output at `query`, α_qj W_O^h v_j;
    summed over j, the head's output there (its part of o_proj's output, no bias)."""
    return pattern[:, query, :, None] * vectors  # (H, T, 1) · (H, T, D)


def value_weighted(pattern: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """(H, T, T): ‖α_ij W_O^h v_j‖ normalised per row, the norm-based share of each source;
    `pattern` (H, T, T), `vectors` (H, T, D) from `head_vectors`. A row that moves nothing
    (every part zero) stays zero."""
    flows = pattern * np.linalg.norm(vectors, axis=-1)[:, None, :]  # (H, T, T)
    total = flows.sum(-1, keepdims=True)
    return np.divide(flows, total, out=np.zeros_like(flows), where=total > 0)


def first_token_shares(pattern: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """(2, H): each head's mean share on the first token over queries 1…T−1, by weight and by
    norm (query 0 has only the first token to look at)."""
    return np.stack([pattern[:, 1:, 0].mean(-1), shares[:, 1:, 0].mean(-1)])


def logit_effect(parts: np.ndarray, scale: np.ndarray, rms: float, unembed: np.ndarray):
    """(..., V): the direct effect on the next-token logits of vectors `parts` (..., D) written
    to the residual stream at one position, read through the final RMSNorm with its division
    frozen at that position's `rms` (this run's) and its learned `scale` (D,), then the
    unembedding `unembed` (V, D): W_U (scale ⊙ part / rms). It is linear, so the parts' effects
    sum to their sum's; over everything written at the position, the logits (no bias)."""
    return (parts * (scale / rms)) @ unembed.T  # (..., D) @ (D, V)
