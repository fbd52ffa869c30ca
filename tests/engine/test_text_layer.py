"""The text page's attention layer (models/text_layer.py), RoPE, the temperature experiment, the
downloads and the head-view data, each against a hand computation or an invariant."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.hooks import run_with_cache
from attnviz.core.positional import rope, rope_angles
from attnviz.figures.head_view import head_view_data
from attnviz.figures.text import HEAD_VIEW_MAX
from attnviz.models.text_layer import TextLayerConfig, TextSelfAttention
from attnviz.topics.text.attention import (
    PAD,
    TextConfig,
    analyse,
    attention_csv,
    attention_json,
    padded_batch,
    temperature_rows,
    valid_heads,
)


def rope_by_complex_numbers(x: np.ndarray) -> np.ndarray:
    """Seed-free oracle: each pair (x_2i, x_2i+1) is the complex number x_2i + i·x_2i+1,
    multiplied by e^(i·pos·10000^(-2i/d))."""
    t, d = x.shape
    z = x[:, 0::2] + 1j * x[:, 1::2]  # (T, d/2)
    pos = np.arange(t)[:, None]
    theta = 10_000.0 ** (-np.arange(d // 2) * 2 / d)[None, :]
    z = z * np.exp(1j * pos * theta)
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def test_rope_equals_complex_rotation_and_keeps_norms():
    x = np.random.default_rng(0).normal(size=(7, 8)).astype(np.float64)
    got = rope(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, rope_by_complex_numbers(x), atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), np.linalg.norm(x, axis=1), atol=1e-10)
    assert rope_angles(3, 8).shape == (3, 4)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 20), st.integers(0, 20), st.integers(1, 10))
def test_rope_scores_depend_only_on_the_offset(m, n, shift):
    gen = torch.Generator().manual_seed(m * 31 + n)
    q, k = (
        torch.randn(16, generator=gen, dtype=torch.float64),
        torch.randn(16, generator=gen, dtype=torch.float64),
    )
    x = torch.zeros(32, 16, dtype=torch.float64)

    def rotated_score(i: int, j: int) -> float:
        qs, ks = x.clone(), x.clone()
        qs[i], ks[j] = q, k
        return float(rope(qs)[i] @ rope(ks)[j])

    assert rotated_score(m, n) == pytest.approx(rotated_score(m + shift, n + shift), abs=1e-9)


def hand_attention(layer: TextSelfAttention, x: np.ndarray, keep: np.ndarray, cfg: TextConfig):
    """Seed 004 in NumPy from the input x (B, T, D) and the layer's W and b: per sequence and head,
    q = x W_q + b_q sliced to the head's columns, RoPE by complex numbers on q and k only, scores
    q kᵀ/√d_h/τ, masked entries −∞, softmax, weights · v. Returns (weights (B, H, T, T),
    out (B, T, D))."""
    w = {n: getattr(layer, f"w_{n}").double().numpy() for n in "qkv"}  # (D, D)
    b = {n: getattr(layer, f"b_{n}").double().numpy() for n in "qkv"}  # (D,)
    bsz, t, d = x.shape
    dh = d // cfg.n_heads
    weights = np.zeros((bsz, cfg.n_heads, t, t))
    out = np.zeros((bsz, t, d))
    for i in range(bsz):
        allowed = np.tril(np.ones((t, t), bool)) if cfg.causal else np.ones((t, t), bool)
        allowed = allowed & keep[i][None, :]
        for h in range(cfg.n_heads):
            cols = slice(h * dh, (h + 1) * dh)
            q, k, v = (x[i] @ w[n][:, cols] + b[n][cols] for n in "qkv")  # (T, Dh)
            if cfg.positional == "rope":
                q, k = rope_by_complex_numbers(q), rope_by_complex_numbers(k)
            logits = np.where(allowed, q @ k.T / math.sqrt(dh) / cfg.temperature, -np.inf)
            e = np.exp(logits - logits.max(1, keepdims=True))
            weights[i, h] = e / e.sum(1, keepdims=True)
            out[i, :, cols] = weights[i, h] @ v
    return weights, out


# rejects: RoPE over the whole d_model before the heads are split, RoPE applied to v as well,
# the biases left out, and ÷√d_model instead of ÷√d_head
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("positional", ["none", "rope"])
def test_layer_equals_a_hand_computation_from_the_input_and_its_weights(causal, positional):
    cfg = TextConfig(d_model=16, n_heads=4, causal=causal, positional=positional, temperature=0.7)
    layer = TextSelfAttention(cfg.layer())
    x = torch.randn(2, 6, 16, generator=torch.Generator().manual_seed(1))
    keep = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])
    weights, out = hand_attention(layer, x.double().numpy(), keep.numpy(), cfg)
    fast = layer(x, keep)  # nothing captured: F.scaled_dot_product_attention
    slow, cache = run_with_cache(layer, x, keep)  # explicit path through the hook points
    np.testing.assert_allclose(cache["hook_weights"].numpy(), weights, atol=1e-5, rtol=1e-4)
    np.testing.assert_allclose(slow.numpy(), out, atol=1e-5, rtol=1e-4)
    np.testing.assert_allclose(fast.numpy(), out, atol=1e-5, rtol=1e-4)


def test_page_config_hands_every_layer_setting_to_the_layer():
    assert TextConfig().layer() == TextLayerConfig()  # the same defaults in both
    cfg = TextConfig("char", 50, 8, 2, "rope", "cosine", False, 0.5, True, 3)  # as the page does
    assert cfg.layer() == TextLayerConfig(8, 2, "rope", "cosine", False, 0.5, True, 3)


def test_padding_mask_off_lets_pad_keys_take_weight_and_an_empty_text_stays_finite():
    cfg = TextConfig(d_model=16, n_heads=2)
    padded, masked = padded_batch("the cat sat on the mat", "a dog", cfg, pad_mask=True)
    _, unmasked = padded_batch("the cat sat on the mat", "a dog", cfg, pad_mask=False)
    pads = [i for i, tok in enumerate(padded[1]) if tok == PAD]
    assert pads and np.all(masked[1][..., pads] == 0)
    assert np.all(unmasked[1][..., pads] > 0)
    _, empty = padded_batch("the cat", "", cfg)
    assert np.isfinite(empty).all()
    np.testing.assert_allclose(empty.sum(-1), 1.0, atol=1e-5)


def test_temperature_rows_sum_to_one_flatten_as_tau_grows_and_respect_the_causal_mask():
    scores = np.array([2.0, 0.5, -1.0, 3.0, 0.0], dtype=np.float32)
    rows, entropy = temperature_rows(scores, [0.1, 1.0, 10.0], causal_query=2)
    np.testing.assert_allclose(rows.sum(1), 1.0, atol=1e-6)
    assert np.all(rows[:, 3:] == 0)  # keys after the query are masked
    assert entropy[0] < entropy[1] < entropy[2] <= math.log(3) + 1e-6
    hand = np.exp(scores[:3] / 10.0) / np.exp(scores[:3] / 10.0).sum()
    np.testing.assert_allclose(rows[2, :3], hand, atol=1e-6)


def test_valid_heads_divide_d_model():
    assert valid_heads(24) == [1, 2, 3, 4, 6, 8]
    assert valid_heads(8, most=8) == [1, 2, 4, 8]


def test_csv_and_json_downloads_read_back_to_the_weights():
    cfg = TextConfig(d_model=16, n_heads=2)
    result = analyse("=cmd one two", cfg)
    rows = list(csv.reader(io.StringIO(attention_csv(result.tokens, result.weights))))
    t = len(result.tokens)
    assert result.tokens[0] == "="
    assert rows[1][1] == "'="  # a formula-looking token is quoted for spreadsheets
    second_head = rows[(t + 2) + 2 : (t + 2) + 2 + t]
    np.testing.assert_allclose(
        [[float(c) for c in r[1:]] for r in second_head], result.weights[1], atol=1e-5
    )
    data = json.loads(attention_json(result, cfg))
    assert data["tokens"] == result.tokens and data["settings"]["n_heads"] == 2
    np.testing.assert_allclose(data["weights"], result.weights, atol=1e-6)


def test_head_view_data_keeps_lines_above_the_threshold_and_caps_the_tokens():
    weights = np.zeros((2, 3, 3), dtype=np.float32)
    weights[0] = np.eye(3)
    weights[1] = [[0.5, 0.5, 0.0], [0.005, 0.995, 0.0], [0.2, 0.3, 0.5]]
    data = head_view_data(weights, ["<b>x</b>", " ", "y"], heads=[1], query=2)
    (line,) = data["heads"]
    assert line["head"] == 1 and (1, 0) not in zip(line["q"], line["k"], strict=True)
    assert len(line["w"]) == 6  # 0.005 and the zeros fall under the 0.01 threshold
    assert data["tokens"] == ["<b>x</b>", "␣", "y"]  # plain text: the script uses textContent
    json.dumps(data)
    long = np.full((1, 100, 100), 0.01, dtype=np.float32)
    assert len(head_view_data(long, ["a"] * 100, [0], None)["tokens"]) == HEAD_VIEW_MAX
