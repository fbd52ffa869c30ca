"""The attention variants of 2024–26 as one self-attention module, each a change around the one
attention function (core.attention.scaled_dot_product_attention), each with the hook points of
every attention layer (models/hooked_attention.py):

    mha     multi-head (2017): every query head has its own key and value head
    gqa     grouped-query: `n_kv_heads` key/value heads, each read by H / n_kv_heads query heads
            (core.attention.repeat_kv); SmolLM2, Llama 3, Gemma 3, gpt-oss
    mqa     multi-query: one key/value head for all (gqa with one group)
    mla     multi-head latent (DeepSeek-V2/V3): keys and values up-projected from one latent
            c = z W_dkv of width `latent`, the only thing a decoder caches (no decoupled rotary
            key: the tiny transformer's positions are learned and added to the input)
    sink    sliding window on every other layer (from layer 0, as gpt-oss alternates banded and
            full layers) and a learned sink logit per head on every layer
            (core.attention.softmax_with_sink)
    gated   σ(z W_g) ⊙ attention: a sigmoid gate on each head's output, elementwise, computed
            from the same input z (Qwen's gated attention, position G1)
    diff    differential: (softmax(q₁k₁ᵀ/√d) − λ softmax(q₂k₂ᵀ/√d)) v, q and k of each head split
            in two halves, λ learned per head (core.attention.differential_attention); the
            paper's per-head normalisation after it is left out

Hook points as every attention layer's: `hook_q`, `hook_k` (B, H, T, Dh; gqa/mqa: the repeated
keys, mla: the up-projected ones), `hook_scores` (not for diff: its two maps are scored apart),
`hook_weights` (B, H, T, T: diff's A₁ − λA₂), `hook_out` (B, H, T, Dh, before gated's gate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnviz.core.attention import differential_attention, merge_heads, repeat_kv, split_heads
from attnviz.models.hooked_attention import HookedAttention

VARIANTS = ("mha", "gqa", "mqa", "mla", "sink", "gated", "diff")
VARIANT_LABELS = {
    "mha": "multi-head (2017)",
    "gqa": "grouped-query",
    "mqa": "multi-query",
    "mla": "latent (MLA)",
    "sink": "window + sink",
    "gated": "gated",
    "diff": "differential",
}


@dataclass(frozen=True)
class VariantConfig:
    kind: str = "mha"  # one of VARIANTS
    d_model: int = 32
    n_heads: int = 4
    n_kv_heads: int = 2  # gqa's key/value heads (mqa: 1; the others: n_heads)
    latent: int = 16  # mla's latent width
    window: int = 0  # sink: keys a windowed layer keeps (itself and window − 1 before); 0: all
    lambda_init: float = 0.5  # diff's λ at the start

    def problems(self) -> list[str]:
        """Readable reasons this configuration cannot be built (empty if it can)."""
        out = []
        if self.kind not in VARIANTS:
            out.append(f"the variant must be one of {', '.join(VARIANTS)}")
        if self.d_model % self.n_heads:
            out.append(f"d_model {self.d_model} is not divisible by {self.n_heads} heads")
        if self.n_kv_heads < 1 or self.n_heads % self.n_kv_heads:
            out.append(f"{self.n_heads} query heads do not split into {self.n_kv_heads} groups")
        if self.kind == "diff" and (self.d_model // self.n_heads) % 2:
            out.append("differential attention splits each head in two: d_head must be even")
        return out

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @property
    def kv_heads(self) -> int:
        """Key/value heads a token keeps (mla: none, it keeps the latent)."""
        return {"gqa": self.n_kv_heads, "mqa": 1}.get(self.kind, self.n_heads)


class VariantAttention(HookedAttention):
    """Causal or bidirectional self-attention of one variant: z (B, T, D) -> (B, T, D)."""

    def __init__(self, config: VariantConfig):
        super().__init__()
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.config = config
        d, kv = config.d_model, config.kv_heads * config.d_head
        self.q_proj = nn.Linear(d, d)
        if config.kind == "mla":
            self.kv_down = nn.Linear(d, config.latent, bias=False)  # c = z W_dkv: cached
            self.k_up, self.v_up = nn.Linear(config.latent, d), nn.Linear(config.latent, d)
        else:
            self.k_proj, self.v_proj = nn.Linear(d, kv), nn.Linear(d, kv)
        self.o_proj = nn.Linear(d, d)
        if config.kind == "sink":
            self.sink = nn.Parameter(torch.zeros(config.n_heads))  # one logit a head
        if config.kind == "gated":
            self.gate = nn.Linear(d, d)  # σ(z W_g): one gate per head dimension
        if config.kind == "diff":
            self.lam = nn.Parameter(torch.full((config.n_heads,), config.lambda_init))

    def keys_values(self, z: Tensor) -> tuple[Tensor, Tensor]:
        """Each query head's keys and values (B, H, T, Dh), from what this variant caches."""
        cfg = self.config
        if cfg.kind == "mla":
            latent = self.kv_down(z)  # (B, T, latent)
            return split_heads(self.k_up(latent), cfg.n_heads), split_heads(
                self.v_up(latent), cfg.n_heads
            )
        k = split_heads(self.k_proj(z), cfg.kv_heads)  # (B, Hkv, T, Dh)
        v = split_heads(self.v_proj(z), cfg.kv_heads)
        groups = cfg.n_heads // cfg.kv_heads
        return repeat_kv(k, groups), repeat_kv(v, groups)  # (B, H, T, Dh)

    def windowed(self, mask: Tensor | None, t: int, device) -> Tensor | None:
        """The mask with a sliding window (sink's windowed layers): key j ≤ i within the window."""
        if not self.config.window:
            return mask
        i = torch.arange(t, device=device)
        band = (i[:, None] - i[None, :] < self.config.window) & (i[:, None] >= i[None, :])
        return band if mask is None else mask.to(torch.bool) & band  # (T, T)

    def forward(self, z: Tensor, mask: Tensor | None = None) -> Tensor:
        """z (B, T, D); mask broadcastable to (B, H, T, T), True = may attend. -> (B, T, D)"""
        cfg = self.config
        q = split_heads(self.q_proj(z), cfg.n_heads)  # (B, H, T, Dh)
        k, v = self.keys_values(z)  # (B, H, T, Dh)
        mask = self.windowed(mask, z.shape[1], z.device)
        if cfg.kind == "diff":
            out = self.differential(q, k, v, mask)
        else:
            sink = self.sink[:, None, None] if cfg.kind == "sink" else None  # (H, 1, 1)
            out = self.attend(q, k, v, mask, scale=1 / math.sqrt(cfg.d_head), sink=sink)
        if cfg.kind == "gated":
            out = out * torch.sigmoid(split_heads(self.gate(z), cfg.n_heads))  # (B, H, T, Dh)
        return self.o_proj(merge_heads(out))

    def differential(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
        """(A₁ − λA₂) v per head through the hook points; q, k, v (B, H, T, Dh)."""
        q, k = self.hook_q(q), self.hook_k(k)
        half = self.config.d_head // 2
        out, _ = differential_attention(
            (q[..., :half], q[..., half:]),
            (k[..., :half], k[..., half:]),
            v,
            self.lam[:, None, None],  # (H, 1, 1)
            mask,
            on_weights=self.hook_weights,
        )  # (B, H, T, Dh)
        return self.hook_out(out)


def cached_numbers(config: VariantConfig) -> int:
    """Numbers a decoder caches per token for one layer of this variant: keys and values of each
    key/value head, or mla's latent."""
    if config.kind == "mla":
        return config.latent
    return 2 * config.kv_heads * config.d_head
