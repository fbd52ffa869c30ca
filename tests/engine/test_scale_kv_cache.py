"""Decoding with a KV cache (attnviz/topics/attention_at_scale/kv_cache.py) against independent
oracles: each step's cached logits equal the model's own full forward over the prefix and, for one
case, a forward written here with einsum from the model's weights; the work per step is the sum over
the matmuls' shapes; the cache's bytes are those of the tensors the cache really holds. Then
the views, notes and the KV-cache Try-this claims."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from attnviz.topics.attention_at_scale.flash_params import FLASH_PARAMS, FLASH_TRY_THIS
from attnviz.topics.attention_at_scale.flash_views import KV_VIEWS, kv_notes, kv_views
from attnviz.topics.attention_at_scale.kv_cache import KVConfig, build_model, cached_step, run_kv

DEFAULTS = {p.key: p.default for p in FLASH_PARAMS} | {"seed": 0, "device": "cpu"}


@pytest.mark.parametrize(("layers", "heads"), [(1, 1), (2, 4)])
def test_cached_logits_equal_the_full_forward_of_each_prefix(layers, heads):
    config = KVConfig(steps=7, n_layer=layers, n_head=heads, seed=5)
    run, model = run_kv(config), build_model(config)
    with torch.no_grad():
        for t in range(1, config.steps + 1):
            full = model(torch.tensor([run.tokens[:t]]))[0, -1]  # (V,)
            np.testing.assert_allclose(run.logits_cached[t - 1], full.numpy(), atol=1e-5)
    # greedy: each token read is the argmax of the step before (the same either way)
    assert run.tokens[1:] == [int(i) for i in run.logits_full[:-1].argmax(1)]


def layer_norm(x, w, b):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-5) * w + b


def einsum_forward(p: dict, ids: list[int], layers: int, heads: int) -> torch.Tensor:
    """The causal transformer from its weights: pre-LayerNorm blocks, GELU MLP. (T, V)"""
    t, d = len(ids), p["embed.weight"].shape[1]
    x = p["embed.weight"][ids] * math.sqrt(d) + p["pos"][:t]  # (T, D)
    for i in range(layers):
        w = {k.removeprefix(f"blocks.{i}."): v for k, v in p.items()}
        z = layer_norm(x, w["ln1.weight"], w["ln1.bias"])
        q, k, v = (
            torch.einsum("te,de->td", z, w[f"attn.{n}_proj.weight"]) + w[f"attn.{n}_proj.bias"]
            for n in "qkv"
        )
        q, k, v = (m.reshape(t, heads, d // heads) for m in (q, k, v))  # (T, H, Dh)
        s = torch.einsum("thc,shc->hts", q, k) / math.sqrt(d // heads)  # (H, T, T)
        s = s.masked_fill(torch.ones(t, t).triu(1).bool(), float("-inf"))
        a = torch.exp(s - s.amax(-1, keepdim=True))
        a = a / a.sum(-1, keepdim=True)
        out = torch.einsum("hts,shc->thc", a, v).reshape(t, d)
        x = x + out @ w["attn.o_proj.weight"].T + w["attn.o_proj.bias"]
        h = layer_norm(x, w["ln2.weight"], w["ln2.bias"]) @ w["mlp.0.weight"].T + w["mlp.0.bias"]
        h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))  # exact GELU
        x = x + h @ w["mlp.2.weight"].T + w["mlp.2.bias"]
    return layer_norm(x, p["ln_f.weight"], p["ln_f.bias"]) @ p["head.weight"].T + p["head.bias"]


def test_cached_logits_equal_an_einsum_forward_from_the_weights():
    config = KVConfig(steps=9, n_layer=2, n_head=2, seed=2)
    run = run_kv(config)
    weights = {k: v.detach() for k, v in build_model(config).state_dict().items()}
    logits = einsum_forward(weights, run.tokens, 2, 2)  # position t: the prefix 0..t's logits
    np.testing.assert_allclose(run.logits_cached, logits.numpy(), atol=1e-5)


def matmul_work(shapes) -> int:
    """Multiply-adds of matmuls given as (rows, inner, cols)."""
    return sum(a * b * c for a, b, c in shapes)


@pytest.mark.parametrize(("layers", "heads"), [(1, 1), (2, 2), (3, 4)])
def test_work_per_step_is_the_sum_over_the_matmuls(layers, heads):
    config = KVConfig(steps=6, n_layer=layers, n_head=heads)
    run, d = run_kv(config), config.d_model
    dh = d // heads
    for t in range(1, config.steps + 1):
        for rows, got in ((t, run.work_full[t - 1]), (1, run.work_cached[t - 1])):
            projections = [(rows, d, d)] * 4  # Q, K, V, output
            per_head = [(rows, dh, t), (rows, t, dh)]  # QKᵀ, weights · V
            assert got == layers * matmul_work(projections + per_head * heads)


def test_cache_bytes_are_the_cached_tensors_bytes():
    config = KVConfig(steps=5, n_layer=3, n_head=2)
    run, model = run_kv(config), build_model(config)
    cache: list = []
    with torch.no_grad():
        for pos, token in enumerate(run.tokens):
            cached_step(model, token, pos, cache)
            held = sum(x.numel() * x.element_size() for pair in cache for x in pair)
            assert run.cache_bytes[pos] == held


def test_views_and_notes():
    views = kv_views(DEFAULTS)
    assert list(views) == list(KV_VIEWS)
    for fig in views.values():
        go.Figure(fig.to_dict())
    work = views["sc_kv_work"]
    assert work.data[1].line.width > work.data[0].line.width  # with the cache: drawn bold
    off = kv_views(DEFAULTS | {"sc_kv_cache": False}, only=["sc_kv_work"])["sc_kv_work"]
    assert off.data[0].line.width > off.data[1].line.width
    assert kv_notes(DEFAULTS)[1].startswith("Attention multiply-adds in all: with the cache")
    assert "in all: without" in kv_notes(DEFAULTS | {"sc_kv_cache": False})[1]


@pytest.mark.try_this("attention-at-scale", 9)
def test_try_this_same_logits_far_less_work():
    assert "13× more" in FLASH_TRY_THIS[3] and "27×" in FLASH_TRY_THIS[3]
    run = run_kv(KVConfig(steps=24))
    assert run.max_difference < 1e-5
    assert round(run.work_full.sum() / run.work_cached.sum()) == 13
    longer = run_kv(KVConfig(steps=48))
    assert round(longer.work_full.sum() / longer.work_cached.sum()) == 27


@pytest.mark.try_this("attention-at-scale", 10)
def test_try_this_cache_memory():
    assert "512 bytes" in FLASH_TRY_THIS[4] and "12 KiB" in FLASH_TRY_THIS[4]
    two, four = run_kv(KVConfig(steps=24)), run_kv(KVConfig(steps=24, n_head=4))
    assert np.all(np.diff(two.cache_bytes) == 512)
    assert two.cache_bytes[-1] == 12 * 1024 == four.cache_bytes[-1]
    assert "12,288 bytes (12.0 KiB)" in kv_notes(DEFAULTS)[2]
