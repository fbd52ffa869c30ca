"""The text page's attention layer: seeded (not learned) Q/K/V maps over token vectors.

This module owns `TextLayerConfig` and `TextSelfAttention`: W_q, W_k, W_v (D, D) and their
biases drawn from a seed, an optional RoPE rotation of q and k, the choice of score
(dot / cosine / neg_sq_dist), ÷√d_k, temperature and masks (causal, padding). The attention is
`HookedAttention.attend` (models/hooked_attention.py), so the hook points and the fused/explicit
decision are those of every other model. The page pipeline lives in topics/text/attention.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from attnviz.core.attention import causal_mask, merge_heads, split_heads
from attnviz.core.positional import rope
from attnviz.models.hooked_attention import HookedAttention


@dataclass(frozen=True)
class TextLayerConfig:
    d_model: int = 32
    n_heads: int = 4
    positional: str = "sinusoidal"  # "rope" rotates q and k; the others are added to x upstream
    score: str = "dot"
    scaled: bool = True  # ÷√d_k (dot score only)
    temperature: float = 1.0
    causal: bool = False
    seed: int = 0


class TextSelfAttention(HookedAttention):
    """Multi-head self-attention with seeded W_q, W_k, W_v (D, D) and biases, no output map.

    Hook points: hook_q, hook_k (B, H, T, Dh) after RoPE; hook_scores (B, H, T, T) after ÷√d_k,
    before the temperature; hook_weights (B, H, T, T); hook_out (B, H, T, Dh).
    """

    def __init__(self, cfg: TextLayerConfig):
        super().__init__()
        if cfg.d_model % cfg.n_heads:
            raise ValueError(f"d_model={cfg.d_model} is not divisible by {cfg.n_heads} heads")
        self.cfg = cfg
        gen = torch.Generator().manual_seed(cfg.seed + 101)
        d, scale = cfg.d_model, 1 / math.sqrt(cfg.d_model)  # scores start in a readable range
        for n in "qkv":
            self.register_buffer(f"w_{n}", torch.randn(d, d, generator=gen) * scale)
        for n in "qkv":
            self.register_buffer(f"b_{n}", torch.randn(d, generator=gen) * 0.1)

    def mask(self, t: int, key_mask: Tensor | None) -> Tensor:
        """(T, T) or (B, 1, T, T) boolean: causal if configured, pad keys masked by key_mask."""
        mask = causal_mask(t) if self.cfg.causal else torch.ones(t, t, dtype=torch.bool)
        if key_mask is not None:
            mask = mask & key_mask[:, None, None, :]  # (B, 1, T, T)
        return mask

    def forward(self, x: Tensor, key_mask: Tensor | None = None) -> Tensor:
        """x (B, T, D); key_mask (B, T) True for real tokens. Returns (B, T, D)."""
        cfg = self.cfg
        q, k, v = (
            split_heads(x @ getattr(self, f"w_{n}") + getattr(self, f"b_{n}"), cfg.n_heads)
            for n in "qkv"
        )  # (B, H, T, Dh)
        if cfg.positional == "rope":
            q, k = rope(q), rope(k)
        scale = 1 / math.sqrt(q.shape[-1]) if cfg.scaled and cfg.score == "dot" else 1.0
        out = self.attend(
            q,
            k,
            v,
            self.mask(x.shape[1], key_mask),
            scale=scale,
            temperature=cfg.temperature,
            score_name=cfg.score,
        )  # (B, H, T, Dh)
        return merge_heads(out)  # (B, T, D)
