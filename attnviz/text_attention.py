"""Self-attention on a sentence: tokens → embeddings + positions → Q, K, V per head → weights.

Embeddings are seeded random vectors keyed by the token string (the same token always gets
the same vector). W_q, W_k, W_v and their biases are seeded. Scores come from
attnviz.attention.score; "scaled" divides by √d_k; masks: causal, and padding in the
two-sentence batch. Also the two experiments that need their own computation: permutation
equivariance without positions, and softmax saturation as d_k grows.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.attention import (
    causal_mask,
    masked_softmax,
    merge_heads,
    row_entropy,
    score,
    split_heads,
)
from attnviz.positional import encoding
from attnviz.tokenizers import tokenize

MAX_TOKENS = 512
SCORES = ("dot", "cosine", "neg_sq_dist")


@dataclass
class TextConfig:
    tokenizer: str = "word"
    bpe_vocab: int = 400
    d_model: int = 32
    n_heads: int = 4
    positional: str = "sinusoidal"
    score: str = "dot"
    scaled: bool = True
    temperature: float = 1.0
    causal: bool = False
    seed: int = 0


@dataclass
class TextAttention:
    tokens: list[str]
    ids: list[int]
    truncated_from: int  # token count before truncation (== len(tokens) if none)
    embeddings: np.ndarray  # (T, D)
    positions: np.ndarray  # (T, D)
    weights: np.ndarray  # (H, T, T)
    outputs: np.ndarray  # (T, D)
    entropy: np.ndarray  # (H, T) nats per query row


def embed(tokens: list[str], d_model: int, seed: int) -> np.ndarray:
    """(T, D) seeded vectors, one per distinct token string."""
    rows = [
        np.random.default_rng([seed, zlib.crc32(t.encode("utf-8"))]).normal(0, 1, d_model)
        for t in tokens
    ]
    return np.asarray(rows, dtype=np.float32).reshape(len(tokens), d_model)


def projections(d_model: int, seed: int) -> dict[str, torch.Tensor]:
    """Seeded W_q, W_k, W_v (D, D) and biases (D,), scaled so scores start in a readable range."""
    gen = torch.Generator().manual_seed(seed + 101)
    scale = 1 / math.sqrt(d_model)
    mats = {n: torch.randn(d_model, d_model, generator=gen) * scale for n in ("w_q", "w_k", "w_v")}
    return mats | {n: torch.randn(d_model, generator=gen) * 0.1 for n in ("b_q", "b_k", "b_v")}


def attend(
    x: np.ndarray, cfg: TextConfig, key_mask: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Multi-head self-attention of x (B, T, D): (weights (B, H, T, T), outputs (B, T, D))."""
    p = projections(cfg.d_model, cfg.seed)
    z = torch.from_numpy(x)
    q, k, v = (
        split_heads(z @ p[f"w_{n}"] + p[f"b_{n}"], cfg.n_heads) for n in "qkv"
    )  # (B, H, T, dh)
    scores = score(cfg.score, q, k)
    if cfg.scaled and cfg.score == "dot":
        scores = scores / math.sqrt(q.shape[-1])
    t = x.shape[1]
    mask = causal_mask(t) if cfg.causal else torch.ones(t, t, dtype=torch.bool)
    if key_mask is not None:
        mask = mask & torch.from_numpy(key_mask)[:, None, None, :]  # (B, 1, T, T)
    w = masked_softmax(scores, mask, temperature=cfg.temperature)
    return w.numpy(), merge_heads(w @ v).numpy()


def analyse(text: str, cfg: TextConfig) -> TextAttention:
    """The whole pipeline for one sentence (truncated to MAX_TOKENS)."""
    toks = tokenize(text, cfg.tokenizer, cfg.bpe_vocab)
    total = len(toks.tokens)
    tokens, ids = toks.tokens[:MAX_TOKENS], toks.ids[:MAX_TOKENS]
    emb = embed(tokens, cfg.d_model, cfg.seed)
    pos = encoding(cfg.positional, len(tokens), cfg.d_model, cfg.seed)
    weights, outputs = attend((emb + pos)[None], cfg)
    ent = row_entropy(torch.from_numpy(weights[0])).numpy()
    return TextAttention(tokens, ids, total, emb, pos, weights[0], outputs[0], ent)


def padded_batch(first: str, second: str, cfg: TextConfig) -> tuple[list[list[str]], np.ndarray]:
    """Two sentences padded to one length with [PAD]: (tokens per sentence, weights (2, H, T, T))."""
    seqs = [tokenize(s, cfg.tokenizer, cfg.bpe_vocab).tokens[:64] for s in (first, second)]
    t = max(1, *(len(s) for s in seqs))
    padded = [s + ["[PAD]"] * (t - len(s)) for s in seqs]
    x = np.stack([embed(s, cfg.d_model, cfg.seed) for s in padded]) + encoding(
        cfg.positional, t, cfg.d_model, cfg.seed
    )
    key_mask = np.array(
        [
            [tok != "[PAD]" or i < len(s) for i, tok in enumerate(p)]
            for s, p in zip(seqs, padded, strict=True)
        ]
    )
    weights, _ = attend(x.astype(np.float32), cfg, key_mask)
    return padded, weights


def permutation_experiment(tokens: list[str], cfg: TextConfig, seed: int = 1) -> dict:
    """Shuffle the tokens; compare the shuffled attention with the original one permuted."""
    perm = np.random.default_rng(seed).permutation(len(tokens))
    emb = embed(tokens, cfg.d_model, cfg.seed)
    pos = encoding(cfg.positional, len(tokens), cfg.d_model, cfg.seed)
    w, _ = attend((emb + pos)[None], cfg)
    w_shuf, _ = attend((emb[perm] + pos)[None], cfg)
    permuted = w[0][:, perm][:, :, perm]  # P W Pᵀ for every head
    return {
        "perm": perm,
        "original": w[0],
        "shuffled": w_shuf[0],
        "original_permuted": permuted,
        "max_difference": float(np.abs(w_shuf[0] - permuted).max()) if len(tokens) else 0.0,
    }


def saturation_curve(
    d_ks: list[int], n_keys: int = 16, trials: int = 64, seed: int = 0
) -> dict[str, np.ndarray]:
    """Mean entropy of softmax(q·k) rows for random unit-variance q, k, with and without ÷√d_k."""
    gen = torch.Generator().manual_seed(seed)
    scaled, unscaled = [], []
    for d in d_ks:
        q = torch.randn(trials, 1, d, generator=gen)
        k = torch.randn(trials, n_keys, d, generator=gen)
        s = (q @ k.transpose(-2, -1))[:, 0]  # (trials, n_keys)
        unscaled.append(float(row_entropy(masked_softmax(s)).mean()))
        scaled.append(float(row_entropy(masked_softmax(s / math.sqrt(d))).mean()))
    return {
        "d_k": np.asarray(d_ks),
        "scaled": np.asarray(scaled),
        "unscaled": np.asarray(unscaled),
        "uniform": np.full(len(d_ks), math.log(n_keys)),
    }
