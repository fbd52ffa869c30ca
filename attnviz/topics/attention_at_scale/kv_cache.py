"""Decoding token by token with and without a KV cache, on a tiny causal TinyTransformer.

This module owns the cached decoding step (each layer projects only the new token, appends its
key and value to the cache and attends over the cache through core.attention), the logits of
every step both ways (without the cache: the model's own full forward over the whole prefix),
the attention work of each step in multiply-adds, and the cache's memory. Work counts the
attention projections (Q, K, V and output: 4·D² a token) and the scores and mixing
(QKᵀ and weights·V: D a query–key pair each) of every layer, D = d_model; the MLP is left out.
Without the cache a step with t tokens in context recomputes all t tokens: 4tD² + 2t²D a layer;
with it, one token: 4D² + 2tD. The cache holds 2 (K and V) × layers × heads × t × d_head
float32 numbers (4 bytes each). The model is untrained (seeded): the point is that both ways
give the same logits, not what they predict. It runs on the CPU (a few microseconds a step).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from attnviz.core.attention import merge_heads, scaled_dot_product_attention, split_heads
from attnviz.models.transformer import TinyTransformer, TransformerConfig

FLOAT_BYTES = 4  # float32
START_TOKEN = 1


@dataclass(frozen=True)
class KVConfig:
    steps: int = 24  # tokens decoded (the first step reads the start token alone)
    n_layer: int = 2
    n_head: int = 2
    d_model: int = 32
    vocab_size: int = 16
    seed: int = 0

    def problems(self) -> list[str]:
        """Readable reasons this configuration cannot run (empty if it can)."""
        if min(self.steps, self.n_layer, self.n_head, self.d_model, self.vocab_size) < 1:
            return ["steps, layers, heads, width and vocabulary must each be at least 1"]
        if self.d_model % self.n_head:
            return [f"d_model {self.d_model} is not divisible by {self.n_head} heads"]
        return []

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_head


@dataclass(frozen=True)
class KVRun:
    config: KVConfig
    tokens: list[int]  # (steps,) the token read at each step (greedy from the cached logits)
    logits_cached: np.ndarray  # (steps, vocab) next-token logits with the cache
    logits_full: np.ndarray  # (steps, vocab) the full forward over the prefix, same tokens
    work_cached: np.ndarray  # (steps,) multiply-adds of attention at each step
    work_full: np.ndarray  # (steps,)
    cache_bytes: np.ndarray  # (steps,) the cache's size after each step

    @property
    def max_difference(self) -> float:
        return float(np.abs(self.logits_cached - self.logits_full).max())


def build_model(config: KVConfig) -> TinyTransformer:
    """The seeded, untrained causal model (learned positions, MLP blocks), in eval mode. The
    global random state is left as it was (fork_rng): other sessions share the process."""
    shape = TransformerConfig(
        vocab_size=config.vocab_size,
        n_layer=config.n_layer,
        n_head=config.n_head,
        d_model=config.d_model,
        d_ff=2 * config.d_model,
        max_len=config.steps,
        causal=True,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        return TinyTransformer(shape).eval()


def attention_work(t: int, d_model: int, n_layer: int, cached: bool) -> int:
    """Multiply-adds of attention at a step with `t` tokens in context (see the docstring)."""
    tokens = 1 if cached else t  # the queries (and K, V projections) computed this step
    return n_layer * (4 * tokens * d_model**2 + 2 * tokens * t * d_model)


def cache_bytes(t: int, n_layer: int, n_head: int, d_head: int) -> int:
    """Bytes of the K and V cache holding `t` tokens: 2 × layers × heads × t × d_head × 4."""
    return 2 * n_layer * n_head * t * d_head * FLOAT_BYTES


def cached_step(
    model: TinyTransformer, token: int, pos: int, cache: list[tuple[Tensor, Tensor]]
) -> Tensor:
    """One decoding step: the new token's logits (vocab,); appends its K, V to `cache`
    (one (k, v) pair of (1, H, t, Dh) per layer, empty list at the start)."""
    d = model.config.d_model
    ids = torch.tensor([[token]])
    x = model.embed(ids) * math.sqrt(d) + model.pos[pos : pos + 1]  # (1, 1, D)
    for layer, block in enumerate(model.blocks):
        attn, z = block.attn, block.ln1(x)
        h = attn.config.n_heads
        q = split_heads(attn.q_proj(z), h)  # (1, H, 1, Dh)
        k, v = split_heads(attn.k_proj(z), h), split_heads(attn.v_proj(z), h)
        if layer < len(cache):
            k, v = torch.cat([cache[layer][0], k], 2), torch.cat([cache[layer][1], v], 2)
            cache[layer] = (k, v)
        else:
            cache.append((k, v))  # (1, H, t, Dh): the new token sees every cached one
        out, _ = scaled_dot_product_attention(
            q, k, v, scale=1 / math.sqrt(q.shape[-1]), normalise=attn.config.normalise
        )  # (1, H, 1, Dh)
        x = x + attn.o_proj(merge_heads(out))
        if block.has_mlp:
            x = x + block.mlp(block.ln2(x))
    return model.head(model.ln_f(x))[0, 0]  # (V,)


@torch.no_grad()
def decode(model: TinyTransformer, steps: int) -> tuple[list[int], Tensor, Tensor]:
    """Greedy decoding from START_TOKEN with the cache; each step's prefix also run through the
    model's full forward. Returns (tokens read, cached logits, full logits), logits (steps, V)."""
    tokens, cache, cached, full = [START_TOKEN], [], [], []
    for pos in range(steps):
        cached.append(cached_step(model, tokens[pos], pos, cache))
        full.append(model(torch.tensor([tokens]))[0, -1])  # the whole prefix again
        if pos + 1 < steps:
            tokens.append(int(cached[-1].argmax()))
    return tokens, torch.stack(cached), torch.stack(full)


@functools.lru_cache(maxsize=16)
def run_kv(config: KVConfig) -> KVRun:
    """Decode `config.steps` tokens both ways, with each step's work and cache size."""
    problems = config.problems()
    if problems:
        raise ValueError("; ".join(problems))
    model = build_model(config)
    tokens, cached, full = decode(model, config.steps)
    ts = range(1, config.steps + 1)  # tokens in context at each step
    c = config
    return KVRun(
        config,
        tokens,
        cached.numpy(),
        full.numpy(),
        np.array([attention_work(t, c.d_model, c.n_layer, True) for t in ts], dtype=np.int64),
        np.array([attention_work(t, c.d_model, c.n_layer, False) for t in ts], dtype=np.int64),
        np.array([cache_bytes(t, c.n_layer, c.n_head, c.d_head) for t in ts], dtype=np.int64),
    )
