"""Our attention math against independent references: PyTorch SDPA and nn.MultiheadAttention."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attnviz.core.attention import (
    causal_mask,
    merge_heads,
    padding_mask,
    scaled_dot_product_attention,
    score,
    split_heads,
)
from attnviz.core.hooks import run_with_cache
from attnviz.models.attention_layer import MultiHeadSelfAttention, SelfAttentionConfig


def test_sdpa_matches_pytorch():
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 8, generator=gen) for _ in range(3))
    ours, weights = scaled_dot_product_attention(q, k, v)
    ref = F.scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, 5))


@pytest.mark.parametrize("scale", [None, 1.0, 0.1])
def test_sdpa_with_causal_mask_and_scale_matches_pytorch(scale):
    gen = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 2, 6, 4, generator=gen) for _ in range(3))
    mask = causal_mask(6)
    ours, weights = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=1e-5)
    assert torch.all(weights[..., ~mask] == 0)


def test_padding_mask_matches_pytorch_and_zeroes_pad_keys():
    gen = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 1, 4, 3, generator=gen) for _ in range(3))
    mask = padding_mask([4, 2], 4)  # (B, 1, 1, T)
    ours, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=1e-5)
    assert torch.all(weights[1, ..., 2:] == 0)


def test_multi_head_weights_match_nn_multihead_attention():
    torch.manual_seed(3)
    d, heads = 12, 3
    ref = nn.MultiheadAttention(d, heads, batch_first=True, bias=True)
    ours = MultiHeadSelfAttention(SelfAttentionConfig(d_model=d, n_heads=heads))
    w_q, w_k, w_v = ref.in_proj_weight.detach().chunk(3)
    b_q, b_k, b_v = ref.in_proj_bias.detach().chunk(3)
    with torch.no_grad():
        for lin, w, b in (
            (ours.q_proj, w_q, b_q),
            (ours.k_proj, w_k, b_k),
            (ours.v_proj, w_v, b_v),
        ):
            lin.weight.copy_(w)
            lin.bias.copy_(b)
        ours.o_proj.weight.copy_(ref.out_proj.weight)
        ours.o_proj.bias.copy_(ref.out_proj.bias)
    z = torch.randn(2, 7, d)
    ref_out, ref_weights = ref(z, z, z, need_weights=True, average_attn_weights=False)
    out, cache = run_with_cache(ours, z)
    torch.testing.assert_close(cache["hook_weights"], ref_weights, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=1e-5)
    fast = ours(z)  # nothing captured: the fused path
    torch.testing.assert_close(fast, ref_out.detach(), atol=1e-5, rtol=1e-5)


def test_causal_multi_head_matches_nn_multihead_attention():
    torch.manual_seed(4)
    ref = nn.MultiheadAttention(8, 2, batch_first=True)
    ours = MultiHeadSelfAttention(SelfAttentionConfig(d_model=8, n_heads=2))
    with torch.no_grad():
        for lin, w, b in zip(
            (ours.q_proj, ours.k_proj, ours.v_proj),
            ref.in_proj_weight.chunk(3),
            ref.in_proj_bias.chunk(3),
            strict=True,
        ):
            lin.weight.copy_(w)
            lin.bias.copy_(b)
        ours.o_proj.load_state_dict(ref.out_proj.state_dict())
    z = torch.randn(1, 5, 8)
    allowed = causal_mask(5)
    _, ref_weights = ref(z, z, z, attn_mask=~allowed, average_attn_weights=False)
    _, cache = run_with_cache(ours, z, mask=allowed)
    torch.testing.assert_close(cache["hook_weights"], ref_weights, atol=1e-5, rtol=1e-5)


def test_split_merge_heads_round_trip():
    x = torch.randn(2, 5, 12)
    assert split_heads(x, 4).shape == (2, 4, 5, 3)
    torch.testing.assert_close(merge_heads(split_heads(x, 4)), x)
    with pytest.raises(ValueError, match="divisible"):
        split_heads(x, 5)


def test_score_functions_match_hand_formulas():
    rng = np.random.default_rng(5)
    q, k = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    tq, tk = torch.from_numpy(q), torch.from_numpy(k)
    np.testing.assert_allclose(score("dot", tq, tk).numpy(), q @ k.T, atol=1e-12)
    np.testing.assert_allclose(score("scaled_dot", tq, tk).numpy(), q @ k.T / 2.0, atol=1e-12)
    cos = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (
        k / np.linalg.norm(k, axis=1, keepdims=True)
    ).T
    np.testing.assert_allclose(score("cosine", tq, tk).numpy(), cos, atol=1e-12)
    dist = -((q[:, None, :] - k[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(score("neg_sq_dist", tq, tk).numpy(), dist, atol=1e-12)
    w = rng.normal(size=(4, 4))
    np.testing.assert_allclose(score("general", tq, tk, w=torch.from_numpy(w)).numpy(), q @ w @ k.T)
    wq, wk, wv = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=6)
    additive = np.array([[wv @ np.tanh(wq @ qi + wk @ kj) for kj in k] for qi in q])
    got = score(
        "additive",
        tq,
        tk,
        w_q=torch.from_numpy(wq),
        w_k=torch.from_numpy(wk),
        w=torch.from_numpy(wv),
    )
    np.testing.assert_allclose(got.numpy(), additive, atol=1e-12)
    with pytest.raises(ValueError, match="unknown score"):
        score("nope", tq, tk)


def test_scaled_dot_is_dot_over_sqrt_d():
    q, k = torch.randn(2, 9), torch.randn(3, 9)
    torch.testing.assert_close(score("scaled_dot", q, k), score("dot", q, k) / math.sqrt(9))
