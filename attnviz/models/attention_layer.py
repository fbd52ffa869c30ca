"""Multi-head self-attention as a torch module (the tiny transformer's attention).

This module owns the learned Q/K/V/output projections: Q = zW_q + B_q, K = zW_k + B_k,
V = zW_v + B_v (seed 004), split into heads. The attention itself is
`HookedAttention.attend` (models/hooked_attention.py): core.attention's explicit
`scaled_dot_product_attention` through the hook points `hook_q`, `hook_k`, `hook_scores`,
`hook_weights`, `hook_out`, or the fused PyTorch kernel when nothing is captured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torch import Tensor, nn

from attnviz.core.attention import merge_heads, split_heads
from attnviz.models.hooked_attention import HookedAttention


@dataclass
class SelfAttentionConfig:
    d_model: int = 16
    n_heads: int = 2
    bias: bool = True
    out_proj: bool = True
    scaled: bool = True  # divide scores by sqrt(d_head)
    dropout: float = 0.0
    normalise: str = "softmax"  # core.attention.NORMALISERS: softmax, softmax1, sigmoid


class MultiHeadSelfAttention(HookedAttention):
    """Multi-head self-attention with learned projections.

    Hook points: `hook_q`, `hook_k` (B, H, T, Dh); `hook_scores`, `hook_weights` (B, H, T, T);
    `hook_out` (B, H, T, Dh), each head's output before the heads are merged (replace a head's
    slice to ablate it).
    """

    def __init__(self, config: SelfAttentionConfig):
        super().__init__()
        if config.d_model % config.n_heads:
            raise ValueError(
                f"d_model={config.d_model} is not divisible by n_heads={config.n_heads}"
            )
        self.config = config
        d = config.d_model
        self.q_proj = nn.Linear(d, d, bias=config.bias)
        self.k_proj = nn.Linear(d, d, bias=config.bias)
        self.v_proj = nn.Linear(d, d, bias=config.bias)
        self.o_proj = nn.Linear(d, d, bias=config.bias) if config.out_proj else nn.Identity()
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, z: Tensor, mask: Tensor | None = None) -> Tensor:
        """z (B, T, D); mask broadcastable to (B, H, T, T), True = may attend. -> (B, T, D)"""
        h = self.config.n_heads
        q = split_heads(self.q_proj(z), h)  # (B, H, T, Dh)
        k = split_heads(self.k_proj(z), h)
        v = split_heads(self.v_proj(z), h)
        scale = 1 / math.sqrt(q.shape[-1]) if self.config.scaled else 1.0
        out = self.attend(
            q, k, v, mask, scale=scale, dropout=self.dropout, normalise=self.config.normalise
        )  # (B, H, T, Dh)
        return self.o_proj(merge_heads(out))
