"""Linear attention (Katharopoulos et al. 2020) with the feature map φ(x) = elu(x) + 1: its
weights φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j') (optionally causal: j ≤ i), the output those weights
give, the same output in O(T) (φ(K)ᵀV and Σ_j φ(k_j) summed once, or as running sums when
causal), and how far its weights and output are from softmax attention's on the same q, k, v.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from attnviz.core.attention import scaled_dot_product_attention


def feature_map(x: Tensor) -> Tensor:
    """φ(x) = elu(x) + 1: positive everywhere, so every weight is > 0."""
    return F.elu(x) + 1.0


def linear_weights(q: Tensor, k: Tensor, causal: bool = False) -> Tensor:
    """(..., Tq, Tk) weights φ(q)·φ(k) normalised per row (causal: keys j ≤ i only)."""
    sim = feature_map(q) @ feature_map(k).transpose(-2, -1)  # (..., Tq, Tk)
    if causal:
        sim = sim.tril()
    return sim / sim.sum(dim=-1, keepdim=True)


def linear_attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = False) -> Tensor:
    """(..., Tq, dv): the explicit weights (T × T) times v."""
    return linear_weights(q, k, causal) @ v


def linear_attention_fast(q: Tensor, k: Tensor, v: Tensor, causal: bool = False) -> Tensor:
    """(..., T, dv) the same output without any (T × T) matrix: φ(q_i)ᵀ S / φ(q_i)ᵀ z with
    S = Σ_j φ(k_j) v_jᵀ (d × dv) and z = Σ_j φ(k_j), over all j or (causal) over j ≤ i as
    running sums; O(T · d · dv) work."""
    fq, fk = feature_map(q), feature_map(k)  # (..., T, d)
    if causal:
        kv = torch.cumsum(fk.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)  # (..., T, d, dv)
        num = (fq.unsqueeze(-2) @ kv).squeeze(-2)  # (..., T, dv)
        den = (fq * torch.cumsum(fk, dim=-2)).sum(-1, keepdim=True)  # (..., T, 1)
        return num / den
    kv = fk.transpose(-2, -1) @ v  # (..., d, dv): summed once
    z = fk.sum(dim=-2)  # (..., d)
    return (fq @ kv) / (fq @ z.unsqueeze(-1))  # (..., T, dv)


@dataclass(frozen=True)
class Comparison:
    """Softmax and linear attention on the same q, k, v."""

    softmax_weights: Tensor  # (..., T, T)
    linear_weights: Tensor  # (..., T, T)
    mean_tv: float  # mean over rows of ½ Σ_j |a_ij − b_ij| (0 same, 1 disjoint)
    max_out_diff: float  # max |softmax out − linear out|


def compare(q: Tensor, k: Tensor, v: Tensor, causal: bool = False) -> Comparison:
    """Softmax(q·k/√d) attention (core.attention) against linear attention on q, k, v."""
    t = k.shape[-2]
    mask = torch.ones(q.shape[-2], t, dtype=torch.bool).tril() if causal else None
    soft_out, soft_w = scaled_dot_product_attention(q, k, v, mask)
    lin_w = linear_weights(q, k, causal)
    lin_out = lin_w @ v
    tv = 0.5 * (soft_w - lin_w).abs().sum(-1)  # (..., T)
    return Comparison(
        soft_w,
        lin_w,
        float(tv.mean()),
        float((soft_out - lin_out).abs().max()),
    )
