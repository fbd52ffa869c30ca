"""Attention layers as torch modules: multi-head self-attention with hook points.

Q = zW_q + B_q, K = zW_k + B_k, V = zW_v + B_v (seed 004), split into heads, attention
weights computed explicitly and passed through identity HookPoints so that
`run_with_cache` can read them. When nothing is captured, the fused
`torch.nn.functional.scaled_dot_product_attention` is used instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnviz.core.attention import masked_softmax, merge_heads, split_heads
from attnviz.core.hooks import HookPoint


@dataclass
class SelfAttentionConfig:
    d_model: int = 16
    n_heads: int = 2
    bias: bool = True
    out_proj: bool = True
    scaled: bool = True  # divide scores by sqrt(d_head)
    dropout: float = 0.0


class MultiHeadSelfAttention(nn.Module):
    """Multi-head self-attention.

    Hook points: `hook_scores` and `hook_weights` (B, H, T, T); `hook_head_out` (B, H, T, Dh),
    each head's output before the heads are merged (replace a head's slice to ablate it).
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
        self.hook_scores = HookPoint()
        self.hook_weights = HookPoint()
        self.hook_head_out = HookPoint()
        self.dropout = nn.Dropout(config.dropout)

    def capturing(self) -> bool:
        points = (self.hook_scores, self.hook_weights, self.hook_head_out)
        return any(p._forward_hooks for p in points)

    def forward(self, z: Tensor, mask: Tensor | None = None) -> Tensor:
        """z (B, T, D); mask broadcastable to (B, H, T, T), True = may attend."""
        h = self.config.n_heads
        q = split_heads(self.q_proj(z), h)  # (B, H, T, Dh)
        k = split_heads(self.k_proj(z), h)
        v = split_heads(self.v_proj(z), h)
        scale = 1 / math.sqrt(q.shape[-1]) if self.config.scaled else 1.0
        if not self.capturing() and not (self.training and self.config.dropout):
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
            out = torch.nan_to_num(out)  # a fully masked row gives NaN there; ours gives 0
        else:
            scores = self.hook_scores(q @ k.transpose(-2, -1) * scale)  # (B, H, T, T)
            weights = self.hook_weights(masked_softmax(scores, mask))  # (B, H, T, T)
            out = self.hook_head_out(self.dropout(weights) @ v)  # (B, H, T, Dh)
        return self.o_proj(merge_heads(out))
