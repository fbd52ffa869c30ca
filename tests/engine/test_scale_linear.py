"""Linear attention (attnviz.topics.attention_at_scale.linear) against its formula written out with
loops: w_ij = φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j'), φ(x) = elu(x) + 1 (x + 1 for x > 0, eˣ
otherwise); the O(T) form against the explicit weights; the softmax side against torch.softmax; the
total-variation distance against ½ Σ |a − b| summed by hand."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.topics.attention_at_scale.linear import (
    compare,
    feature_map,
    linear_attention,
    linear_attention_fast,
    linear_weights,
)


def phi(x: float) -> float:
    return x + 1.0 if x > 0 else math.exp(x)


def looped_weights(q: torch.Tensor, k: torch.Tensor, causal: bool) -> list[list[float]]:
    """(T, T) weights by plain loops over one head's rows."""
    t, d = q.shape
    rows = []
    for i in range(t):
        sims = [
            sum(phi(float(q[i, c])) * phi(float(k[j, c])) for c in range(d))
            if (j <= i or not causal)
            else 0.0
            for j in range(t)
        ]
        total = sum(sims)
        rows.append([s / total for s in sims])
    return rows


def qkv(t: int = 6, d: int = 4, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(t, d, generator=gen, dtype=torch.float64) for _ in "qkv")


@pytest.mark.parametrize("causal", [False, True])
def test_linear_weights_are_the_formula_written_out(causal):
    q, k, _ = qkv()
    expected = torch.tensor(looped_weights(q, k, causal), dtype=torch.float64)
    torch.testing.assert_close(linear_weights(q, k, causal), expected)
    assert torch.all(feature_map(q) > 0)


@settings(max_examples=25, deadline=None)
@given(t=st.integers(1, 9), d=st.integers(1, 5), seed=st.integers(0, 99), causal=st.booleans())
def test_the_o_t_form_gives_the_explicit_weights_output(t, d, seed, causal):
    q, k, v = qkv(t, d, seed)
    explicit = torch.einsum("ij,jc->ic", linear_weights(q, k, causal), v)
    torch.testing.assert_close(linear_attention(q, k, v, causal), explicit)
    torch.testing.assert_close(linear_attention_fast(q, k, v, causal), explicit)


def test_compare_reports_softmax_and_the_distances_between_them():
    q, k, v = qkv(7, 3, 5)
    found = compare(q, k, v, causal=True)
    scores = (q @ k.T / math.sqrt(3)).masked_fill(~torch.ones(7, 7).tril().bool(), -math.inf)
    soft = torch.softmax(scores, dim=-1)
    torch.testing.assert_close(found.softmax_weights, soft)
    lin = torch.tensor(looped_weights(q, k, True), dtype=torch.float64)
    tv = (
        sum(
            0.5 * sum(abs(float(a) - float(b)) for a, b in zip(soft[i], lin[i], strict=True))
            for i in range(7)
        )
        / 7
    )
    assert found.mean_tv == pytest.approx(tv)
    assert found.max_out_diff == pytest.approx(float((soft @ v - lin @ v).abs().max()))
