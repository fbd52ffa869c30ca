"""A tiny pre-LayerNorm transformer for toy sequence tasks, with hook points in every layer.

Encoder (bidirectional) or decoder (causal) by config. Each block's attention is
`attnviz.models.attention_layer.MultiHeadSelfAttention`, so `run_with_cache(model, x)` captures
`blocks.{i}.attn.hook_weights` (B, H, T, T), `hook_scores`, `hook_q`, `hook_k` and `hook_out`;
with nothing captured the fused `scaled_dot_product_attention` runs. Heads are ablated by
zeroing their slice of `blocks.{i}.attn.hook_out` (see `ablate_heads`). `mlp=False` gives an
attention-only model (the induction-heads experiment); `attention` picks the weights' function
(core.attention.NORMALISERS); `forward(ids, mask)` takes a boolean (T, T) mask instead of the
causal one (a sliding window that evicts the first tokens).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn

from attnviz.core.attention import NORMALISERS, causal_mask
from attnviz.core.hooks import run_with_hooks
from attnviz.models.attention_layer import MultiHeadSelfAttention, SelfAttentionConfig

POSITIONAL = ("learned", "sinusoidal", "none")


@dataclass(frozen=True)
class TransformerConfig:
    vocab_size: int = 16
    n_layer: int = 1
    n_head: int = 1
    d_model: int = 32
    d_ff: int = 64
    dropout: float = 0.0
    max_len: int = 32
    causal: bool = False
    positional: str = "learned"  # one of POSITIONAL
    mlp: bool = True  # False: attention-only blocks (x + attn(LN(x)) alone)
    attention: str = "softmax"  # one of core.attention.NORMALISERS

    def problems(self) -> list[str]:
        """Readable reasons this configuration cannot be built (empty if it can)."""
        out = []
        if self.d_model % self.n_head:
            out.append(f"d_model {self.d_model} is not divisible by {self.n_head} heads")
        if self.positional not in POSITIONAL:
            out.append(f"positional must be one of {POSITIONAL}")
        if self.attention not in NORMALISERS:
            out.append(f"attention must be one of {NORMALISERS}")
        if min(self.vocab_size, self.n_layer, self.n_head, self.d_model, self.max_len) < 1:
            out.append("sizes must be at least 1")
        return out

    def to_dict(self) -> dict:
        return asdict(self)


def sinusoidal_table(max_len: int, d_model: int) -> Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...). (max_len, d_model)"""
    from attnviz.core.positional import (
        sinusoidal,  # the one implementation, shared with the text page
    )

    return torch.as_tensor(sinusoidal(max_len, d_model), dtype=torch.float32)


class Block(nn.Module):
    """x + attn(LN(x)), then x + MLP(LN(x)) (no MLP when `config.mlp` is False)."""

    def __init__(self, config: TransformerConfig, attn: nn.Module | None = None):
        super().__init__()
        self.ln1 = nn.LayerNorm(config.d_model)
        if attn is None:  # the 2017 attention; a variant's (models/variant_transformer.py) if given
            attn = MultiHeadSelfAttention(
                SelfAttentionConfig(
                    config.d_model,
                    config.n_head,
                    dropout=config.dropout,
                    normalise=config.attention,
                )
            )
        self.attn = attn
        self.has_mlp = config.mlp
        if not config.mlp:
            return
        self.ln2 = nn.LayerNorm(config.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(config.d_model, config.d_ff),
            nn.GELU(),
            nn.Linear(config.d_ff, config.d_model),
            nn.Dropout(config.dropout),
        )

    def forward(self, x: Tensor, mask: Tensor | None) -> Tensor:
        x = x + self.attn(self.ln1(x), mask)
        return x + self.mlp(self.ln2(x)) if self.has_mlp else x


class TinyTransformer(nn.Module):
    """Token ids (B, T) -> logits (B, T, vocab)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model)
        if config.positional == "learned":
            self.pos = nn.Parameter(torch.randn(config.max_len, config.d_model) * 0.1)
        elif config.positional == "sinusoidal":
            self.register_buffer("pos", sinusoidal_table(config.max_len, config.d_model))
        else:  # "none": attention alone cannot tell positions apart
            self.register_buffer("pos", torch.zeros(config.max_len, config.d_model))
        self.blocks = nn.ModuleList(self.block(config, i) for i in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.vocab_size)
        self.drop = nn.Dropout(config.dropout)

    def block(self, config: TransformerConfig, layer: int) -> Block:
        """Block number `layer` (a subclass may give it another attention module)."""
        return Block(config)

    def forward(self, ids: Tensor, mask: Tensor | None = None) -> Tensor:
        """`mask` (T, T), True = may attend, replaces the causal (or no) mask when given."""
        t = ids.shape[1]
        if t > self.config.max_len:
            raise ValueError(f"sequence of {t} tokens is longer than max_len {self.config.max_len}")
        x = self.drop(self.embed(ids) * math.sqrt(self.config.d_model) + self.pos[:t])  # (B, T, D)
        if mask is None and self.config.causal:
            mask = causal_mask(t, device=ids.device)
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.ln_f(x))  # (B, T, V)


def attention_hook_name(layer: int, what: str = "hook_weights") -> str:
    """The cache key of block `layer`'s hook point `what` (one of hooked_attention.HOOK_NAMES)."""
    return f"blocks.{layer}.attn.{what}"


def attention_maps(cache: dict[str, Tensor], n_layer: int) -> Tensor:
    """Stack the captured weights: (L, B, H, T, T)."""
    return torch.stack([cache[attention_hook_name(i)] for i in range(n_layer)])


def ablate_heads(model: TinyTransformer, ids: Tensor, heads: list[tuple[int, int]]) -> Tensor:
    """Logits with the listed (layer, head) outputs set to zero."""
    by_layer: dict[int, list[int]] = {}
    for layer, head in heads:
        by_layer.setdefault(layer, []).append(head)

    def zero(indices):
        def fn(out: Tensor, _name: str) -> Tensor:
            out = out.clone()
            out[:, indices] = 0
            return out

        return fn

    fns = {attention_hook_name(lay, "hook_out"): zero(hs) for lay, hs in by_layer.items()}
    with torch.no_grad():
        return run_with_hooks(model, fns, ids)
