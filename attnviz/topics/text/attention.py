"""The text page's pipeline: tokens → embeddings + positions → the text layer → weights.

This module owns the page's engine: `TextConfig` (the layer's settings plus the tokenizer),
seeded embeddings keyed by the token string (the same token always gets the same vector),
`analyse`, the padded two-sentence batch, and the experiments (permutation equivariance without
positions, softmax saturation as d_k grows, one query row across temperatures) and downloads.
The layer itself (seeded W_q, W_k, W_v, RoPE, masks) is models/text_layer.TextSelfAttention,
read through its hook points with run_with_cache.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import zlib
from dataclasses import dataclass, fields

import numpy as np
import torch

from attnviz.core.attention import masked_softmax, row_entropy
from attnviz.core.hooks import run_with_cache
from attnviz.core.positional import encoding, rope_table
from attnviz.core.tokenizers import tokenize
from attnviz.models.text_layer import TextLayerConfig, TextSelfAttention

MAX_TOKENS = 512
PAIR_MAX = 64  # tokens per sentence in the padded batch and the permutation experiment
SCORES = ("dot", "cosine", "neg_sq_dist")
PAD = "[PAD]"


@dataclass(frozen=True)
class TextConfig:
    """The page's settings: how the text is tokenized, then the layer's (`layer()`)."""

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

    def layer(self) -> TextLayerConfig:
        """The text layer's config (models/text_layer.TextLayerConfig) from these settings."""
        return TextLayerConfig(**{f.name: getattr(self, f.name) for f in fields(TextLayerConfig)})


@dataclass
class TextAttention:
    tokens: list[str]
    ids: list[int]
    truncated_from: int  # token count before truncation (== len(tokens) if none)
    embeddings: np.ndarray  # (T, D)
    positions: np.ndarray  # (T, D) added to the embeddings; for RoPE (T, d_head) cos/sin
    scores: np.ndarray  # (H, T, T) after ÷√d_k, before temperature and masks
    weights: np.ndarray  # (H, T, T)
    outputs: np.ndarray  # (T, D)
    entropy: np.ndarray  # (H, T) nats per query row


def valid_heads(d_model: int, most: int = 8) -> list[int]:
    """Head counts 1..most that divide d_model (d_head = d_model / heads must be whole)."""
    return [h for h in range(1, most + 1) if d_model % h == 0]


def embed(tokens: list[str], d_model: int, seed: int) -> np.ndarray:
    """(T, D) seeded vectors, one per distinct token string."""
    rows = [
        np.random.default_rng([seed, zlib.crc32(t.encode("utf-8"))]).normal(0, 1, d_model)
        for t in tokens
    ]
    return np.asarray(rows, dtype=np.float32).reshape(len(tokens), d_model)


def run_layer(
    x: np.ndarray, cfg: TextConfig, key_mask: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Self-attention of x (B, T, D): (outputs (B, T, D), weights and scores (B, H, T, T))."""
    mask = None if key_mask is None else torch.from_numpy(key_mask)
    out, cache = run_with_cache(TextSelfAttention(cfg.layer()), torch.from_numpy(x), mask)
    return out.numpy(), cache["hook_weights"].numpy(), cache["hook_scores"].numpy()


def model_input(tokens: list[str], cfg: TextConfig) -> np.ndarray:
    """(1, T, D) token embeddings plus the additive positional encoding (none for RoPE)."""
    emb = embed(tokens, cfg.d_model, cfg.seed)
    return (emb + encoding(cfg.positional, len(tokens), cfg.d_model, cfg.seed))[None]


def analyse(text: str, cfg: TextConfig) -> TextAttention:
    """The whole pipeline for one text (truncated to MAX_TOKENS)."""
    toks = tokenize(text, cfg.tokenizer, cfg.bpe_vocab)
    tokens, ids = toks.tokens[:MAX_TOKENS], toks.ids[:MAX_TOKENS]
    t = len(tokens)
    emb = embed(tokens, cfg.d_model, cfg.seed)
    if cfg.positional == "rope":
        positions = rope_table(t, cfg.d_model // cfg.n_heads)
    else:
        positions = encoding(cfg.positional, t, cfg.d_model, cfg.seed)
    out, weights, scores = run_layer(model_input(tokens, cfg), cfg)
    ent = row_entropy(weights[0])  # (H, T)
    return TextAttention(
        tokens, ids, len(toks.tokens), emb, positions, scores[0], weights[0], out[0], ent
    )


def padded_batch(
    first: str, second: str, cfg: TextConfig, pad_mask: bool = True
) -> tuple[list[list[str]], np.ndarray]:
    """Two texts padded to one length with [PAD]: (tokens per text, weights (2, H, T, T)).
    With `pad_mask`, no query may attend to a [PAD] key."""
    seqs = [tokenize(s, cfg.tokenizer, cfg.bpe_vocab).tokens[:PAIR_MAX] for s in (first, second)]
    t = max(1, *(len(s) for s in seqs))
    padded = [s + [PAD] * (t - len(s)) for s in seqs]
    x = np.concatenate([model_input(p, cfg) for p in padded])  # (2, T, D)
    keep = np.array([[i < len(s) or not pad_mask for i in range(t)] for s in seqs])  # (2, T)
    keep[:, 0] |= ~keep.any(1)  # an empty text keeps one key, so no row is fully masked
    _, weights, _ = run_layer(x.astype(np.float32), cfg, keep)
    return padded, weights


def permutation_experiment(tokens: list[str], cfg: TextConfig, seed: int = 1) -> dict:
    """Shuffle the tokens; compare the shuffled attention with the original one permuted."""
    perm = np.random.default_rng(seed).permutation(len(tokens))
    _, w, _ = run_layer(model_input(tokens, cfg), cfg)
    _, w_shuf, _ = run_layer(model_input([tokens[i] for i in perm], cfg), cfg)
    permuted = w[0][:, perm][:, :, perm]  # P W Pᵀ for every head
    return {
        "perm": perm,
        "original": w[0],
        "shuffled": w_shuf[0],
        "original_permuted": permuted,
        "max_difference": float(np.abs(w_shuf[0] - permuted).max()) if len(tokens) else 0.0,
    }


def temperature_rows(
    scores_row: np.ndarray, temperatures: list[float], causal_query: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """One query row's scores (T,) through softmax(s / τ) for each τ: weights (n, T) and the
    entropy of each row (n,). With `causal_query`, keys after it are masked."""
    s = torch.from_numpy(np.asarray(scores_row, dtype=np.float32))
    mask = None if causal_query is None else torch.arange(len(s)) <= causal_query
    rows = torch.stack([masked_softmax(s, mask, temperature=tau) for tau in temperatures])
    return rows.numpy(), row_entropy(rows.numpy())


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


def _cell(token: str) -> str:
    """A token as a CSV cell; a leading = + - @ is quoted so spreadsheets do not run it."""
    return "'" + token if token[:1] in ("=", "+", "-", "@") else token


def attention_csv(tokens: list[str], weights: np.ndarray) -> str:
    """Per head a `# head h` line, a header of key tokens, then one row per query token."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    cells = [_cell(t) for t in tokens]
    for h, matrix in enumerate(weights):  # (T, T) per head
        writer.writerow([f"# head {h}: rows are query tokens and columns key tokens"])
        writer.writerow(["query \\ key", *cells])
        writer.writerows([cells[i], *(f"{w:.6g}" for w in row)] for i, row in enumerate(matrix))
    return buf.getvalue()


def attention_json(result: TextAttention, cfg: TextConfig) -> str:
    """Tokens, ids, settings and weights[head][query][key] as JSON."""
    return json.dumps(
        {
            "settings": dataclasses.asdict(cfg),
            "tokens": result.tokens,
            "ids": result.ids,
            "weights": np.round(result.weights.astype(np.float64), 6).tolist(),
        },
        ensure_ascii=False,
    )
