"""Attention math: score functions and their labels, masked softmax, scaled dot-product
attention, head split/merge, row entropy, and the attention variants of the sinks experiment:
softmax (default), softmax-plus-one ("off-by-one": exp / (1 + Σ exp)) and sigmoid (elementwise,
with the bias −log T, T the number of keys), all by `normalise_scores`; and what the variants of
2024–26 add to it (models/variant_attention.py): a learned sink logit per head
(`softmax_with_sink`), key/value heads shared by groups of query heads (`repeat_kv`) and
differential attention (`differential_attention`, two maps of the one function subtracted).

This module owns the one explicit attention computation of the engine:
`scaled_dot_product_attention` returns `(output, weights)` and every model's explicit path calls
it (models/hooked_attention.py decides when the fused PyTorch kernel may run instead). Masks are
boolean and True where attending is allowed (the convention of
`torch.nn.functional.scaled_dot_product_attention`). float16/bfloat16 inputs are scored and
normalised in float32 and returned in their own dtype, so raw q·k past 65504 does not overflow.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

SCORE_NAMES = ("dot", "scaled_dot", "additive", "general", "cosine", "neg_sq_dist")
SCORE_LABELS = {  # name -> the formula a(q, k) as shown to a reader
    "dot": "qᵀk",
    "scaled_dot": "qᵀk / √d",
    "additive": "wᵀ tanh(W_q q + W_k k)",
    "general": "qᵀ W k",
    "cosine": "qᵀk / (‖q‖ ‖k‖)",
    "neg_sq_dist": "−‖q − k‖²",
}
_LOW_PRECISION = (torch.float16, torch.bfloat16)
NORMALISERS = ("softmax", "softmax1", "sigmoid")


def masked_softmax(
    scores: Tensor, mask: Tensor | None = None, dim: int = -1, temperature: float = 1.0
) -> Tensor:
    """softmax(scores / temperature) over `dim`, with masked entries exactly 0.

    Stable for huge logits (the row maximum is subtracted) and for float16/bfloat16
    (computed in float32, returned in the input dtype). A row with every entry masked
    comes back as all zeros, never NaN; `fully_masked(mask)` tells callers which rows.
    """
    if not temperature > 0 or not math.isfinite(temperature):
        raise ValueError(f"temperature must be a positive finite number, got {temperature!r}")
    work = scores.float() if scores.dtype in _LOW_PRECISION else scores
    work = work / temperature
    if mask is not None:
        mask = mask.to(torch.bool).expand_as(work)
        work = work.masked_fill(~mask, float("-inf"))
    row_max = work.amax(dim=dim, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
    exps = torch.exp(work - row_max)  # masked entries: exp(-inf) = 0
    total = exps.sum(dim=dim, keepdim=True)
    weights = exps / torch.where(total > 0, total, torch.ones_like(total))
    return weights.to(scores.dtype)


def softmax_plus_one(scores: Tensor, mask: Tensor | None = None, dim: int = -1) -> Tensor:
    """exp(s) / (1 + Σ exp(s)) over `dim` ("off-by-one" softmax: a row may give away mass to an
    implicit zero score); masked entries exactly 0. Stable: exp(s − m) / (exp(−m) + Σ exp(s − m))
    with m = max(0, row maximum). Rows sum to < 1."""
    work = scores.float() if scores.dtype in _LOW_PRECISION else scores
    if mask is not None:
        work = work.masked_fill(~mask.to(torch.bool).expand_as(work), float("-inf"))
    row_max = work.amax(dim=dim, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
    shift = row_max.clamp_min(0.0)
    exps = torch.exp(work - shift)
    weights = exps / (torch.exp(-shift) + exps.sum(dim=dim, keepdim=True))
    return weights.to(scores.dtype)


def sigmoid_weights(scores: Tensor, mask: Tensor | None = None, dim: int = -1) -> Tensor:
    """σ(s − log T) elementwise, T the number of keys along `dim` (each weight on its own, rows
    not normalised); masked entries exactly 0."""
    work = scores.float() if scores.dtype in _LOW_PRECISION else scores
    weights = torch.sigmoid(work - math.log(work.shape[dim]))
    if mask is not None:
        weights = weights.masked_fill(~mask.to(torch.bool).expand_as(weights), 0.0)
    return weights.to(scores.dtype)


def normalise_scores(
    scores: Tensor, mask: Tensor | None = None, kind: str = "softmax", temperature: float = 1.0
) -> Tensor:
    """Scores (..., Tq, Tk) -> attention weights by one of NORMALISERS (scores / temperature)."""
    if kind == "softmax":
        return masked_softmax(scores, mask, temperature=temperature)
    if kind not in NORMALISERS:
        raise ValueError(f"unknown attention {kind!r}; choose one of {', '.join(NORMALISERS)}")
    if not temperature > 0 or not math.isfinite(temperature):
        raise ValueError(f"temperature must be a positive finite number, got {temperature!r}")
    scaled = scores / temperature
    return softmax_plus_one(scaled, mask) if kind == "softmax1" else sigmoid_weights(scaled, mask)


def softmax_with_sink(
    scores: Tensor, sink: Tensor, mask: Tensor | None = None, temperature: float = 1.0
) -> Tensor:
    """softmax over the scores (..., Tq, Tk) and one extra column, the sink logit (broadcast to
    (..., Tq, 1)), with that column then dropped: exp(s_j) / (exp(sink) + Σ exp(s)). The sink
    is not divided by the temperature (it is a learned logit of its own)."""
    column = (sink.to(scores.dtype) * temperature).expand(*scores.shape[:-1], 1)  # (..., Tq, 1)
    wide = torch.cat([scores, column], dim=-1)  # (..., Tq, Tk + 1)
    if mask is not None:
        mask = mask.to(torch.bool).expand_as(scores)
        mask = torch.cat([mask, torch.ones_like(mask[..., :1])], dim=-1)
    return masked_softmax(wide, mask, temperature=temperature)[..., :-1]


def differential_attention(
    q: tuple[Tensor, Tensor],
    k: tuple[Tensor, Tensor],
    v: Tensor,
    lam: Tensor,
    mask: Tensor | None = None,
    on_weights: Callable[[Tensor], Tensor] | None = None,
) -> tuple[Tensor, Tensor]:
    """Differential attention (Ye et al. 2024): (softmax(q₁k₁ᵀ/√d) − λ softmax(q₂k₂ᵀ/√d)) v,
    each map by `scaled_dot_product_attention`; q₁, q₂ (..., Tq, d), k₁, k₂ (..., Tk, d),
    v (..., Tk, dv), λ broadcast to (..., 1, 1), e.g. (H, 1, 1). Returns (out (..., Tq, dv),
    weights A₁ − λA₂ (..., Tq, Tk), which may be negative). `on_weights` sees (and may
    replace) the difference before it mixes v."""
    _, first = scaled_dot_product_attention(q[0], k[0], v, mask)  # (..., Tq, Tk)
    _, second = scaled_dot_product_attention(q[1], k[1], v, mask)
    weights = first - lam * second  # (..., Tq, Tk)
    if on_weights is not None:
        weights = on_weights(weights)
    return weights @ v, weights


def fully_masked(mask: Tensor, dim: int = -1) -> Tensor:
    """True for rows of `mask` in which nothing may be attended (their weights are all 0)."""
    return ~mask.to(torch.bool).any(dim=dim)


def causal_mask(t_query: int, t_key: int | None = None, device=None) -> Tensor:
    """(Tq, Tk) boolean mask, True on and below the diagonal: position i sees keys 0..i."""
    t_key = t_query if t_key is None else t_key
    return torch.ones(t_query, t_key, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: Tensor | list[int], t_max: int) -> Tensor:
    """(B, 1, 1, T) boolean key mask from lengths: True for real tokens, False for padding."""
    lengths = torch.as_tensor(lengths)
    keep = torch.arange(t_max)[None, :] < lengths[:, None]  # (B, T)
    return keep[:, None, None, :]


def score(name: str, q: Tensor, k: Tensor, **params) -> Tensor:
    """Score a(q, k) for every query/key pair: q (..., Tq, d), k (..., Tk, d) -> (..., Tq, Tk).

    Names: "dot" qᵀk; "scaled_dot" qᵀk/√d; "additive" wᵀ tanh(W_q q + W_k k) (params w_q, w_k, w,
    and optionally k_part = W_k k already computed);
    "general" qᵀ W k (param w); "cosine" qᵀk / (‖q‖‖k‖); "neg_sq_dist" −‖q − k‖².
    """
    if name == "dot":
        return q @ k.transpose(-2, -1)
    if name == "scaled_dot":
        return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if name == "additive":
        w_q, w_k, w = params["w_q"], params["w_k"], params["w"]
        return additive_score(q, k, w_q, w_k, w, params.get("k_part"))
    if name == "general":
        return q @ params["w"] @ k.transpose(-2, -1)
    if name == "cosine":
        eps = params.get("eps", 1e-8)
        qn = q / q.norm(dim=-1, keepdim=True).clamp_min(eps)
        kn = k / k.norm(dim=-1, keepdim=True).clamp_min(eps)
        return qn @ kn.transpose(-2, -1)
    if name == "neg_sq_dist":
        diff = q.unsqueeze(-2) - k.unsqueeze(-3)  # (..., Tq, Tk, d)
        return -(diff**2).sum(-1)
    raise ValueError(f"unknown score function {name!r}; choose one of {', '.join(SCORE_NAMES)}")


def additive_score(
    q: Tensor, k: Tensor, w_q: Tensor, w_k: Tensor, w: Tensor, k_part: Tensor | None = None
) -> Tensor:
    """Bahdanau's additive score wᵀ tanh(W_q q + W_k k); w_q (h, dq), w_k (h, dk), w (h,).
    `k_part`: W_k k already computed (a decoder scores the same keys at every step)."""
    q_part = q @ w_q.T  # (..., Tq, h)
    k_part = k @ w_k.T if k_part is None else k_part  # (..., Tk, h)
    hidden = torch.tanh(q_part.unsqueeze(-2) + k_part.unsqueeze(-3))  # (..., Tq, Tk, h)
    return hidden @ w


def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    scale: float | None = None,
    *,
    score_name: str = "dot",
    temperature: float = 1.0,
    score_params: dict[str, Tensor] | None = None,
    on_scores: Callable[[Tensor], Tensor] | None = None,
    on_weights: Callable[[Tensor], Tensor] | None = None,
    dropout: Callable[[Tensor], Tensor] | None = None,
    normalise: str = "softmax",
    sink: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """softmax(score(q, k) · scale / temperature, masked) v; q (..., Tq, d), k (..., Tk, d),
    v (..., Tk, dv). Returns (out (..., Tq, dv), weights (..., Tq, Tk)).

    `scale` defaults to 1/√d for the "dot" score and to 1 for the others. `on_scores` and
    `on_weights` see (and may replace) the scaled scores and the weights; for float16/bfloat16
    inputs they see the float32 working tensors. `dropout` applies to the weights that mix v
    only (the returned weights are the undropped ones). A fully masked row gets weights 0, out 0.
    `normalise` picks the weights' function (NORMALISERS: softmax, softmax1, sigmoid). `sink`
    (..., Tq, 1), e.g. (H, 1, 1): a learned logit per head that takes part in the softmax as one
    extra key column and is then dropped (gpt-oss), so a row may sum to less than 1.
    """
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1]) if score_name == "dot" else 1.0
    dtype = v.dtype
    if q.dtype in _LOW_PRECISION:  # q·k past 65504 would be inf in float16
        q, k, v = q.float(), k.float(), v.float()
        score_params = {n: p.float() for n, p in (score_params or {}).items()}
    scores = score(score_name, q, k, **(score_params or {})) * scale  # (..., Tq, Tk)
    if on_scores is not None:
        scores = on_scores(scores)
    if sink is None:
        weights = normalise_scores(scores, mask, normalise, temperature)  # (..., Tq, Tk)
    elif normalise == "softmax":
        weights = softmax_with_sink(scores, sink, mask, temperature)  # (..., Tq, Tk)
    else:
        raise ValueError(f"a sink logit takes part in a softmax, not in {normalise!r}")
    if on_weights is not None:
        weights = on_weights(weights)
    mixing = weights if dropout is None else dropout(weights)
    return (mixing @ v).to(dtype), weights.to(dtype)


def fused_attention(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, scale: float | None = None
) -> Tensor:
    """The same output as `scaled_dot_product_attention` for the dot score, by PyTorch's fused
    kernel (no weights to show). Fully masked rows come back as 0, as ours do. (..., Tq, dv)"""
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    if mask is None:
        return out
    empty = fully_masked(mask)[..., None]  # (..., Tq, 1)
    return torch.where(empty, torch.zeros((), dtype=out.dtype), out)


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, D) -> (B, H, T, D / H)."""
    b, t, d = x.shape
    if d % n_heads:
        raise ValueError(f"model width {d} is not divisible by {n_heads} heads")
    return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)


def repeat_kv(x: Tensor, groups: int) -> Tensor:
    """Grouped-query attention's sharing: (B, Hkv, T, Dh) -> (B, Hkv · groups, T, Dh), each
    key/value head repeated for the `groups` query heads that read it (head h reads h // groups)."""
    return x if groups == 1 else x.repeat_interleave(groups, dim=1)


def merge_heads(x: Tensor) -> Tensor:
    """(B, H, T, Dh) -> (B, T, H * Dh)."""
    b, h, t, dh = x.shape
    return x.transpose(1, 2).reshape(b, t, h * dh)


def row_entropy(weights: Tensor | np.ndarray) -> Tensor | np.ndarray:
    """Shannon entropy (nats) of each attention row; 0 · log 0 counts as 0. (..., Tq, Tk) ->
    (..., Tq). The engine's one entropy: a NumPy array in gives a NumPy array out."""
    if isinstance(weights, np.ndarray):
        return row_entropy(torch.from_numpy(np.ascontiguousarray(weights))).numpy()
    logs = torch.where(weights > 0, weights.clamp_min(1e-30).log(), torch.zeros_like(weights))
    return -(weights * logs).sum(-1)
