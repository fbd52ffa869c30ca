"""Invariants of the masked softmax and attention, checked with hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnviz.core.attention import (
    causal_mask,
    fully_masked,
    masked_softmax,
    row_entropy,
    scaled_dot_product_attention,
)


@st.composite
def scores_and_mask(draw):
    n = draw(st.integers(1, 8))
    rows = draw(st.integers(1, 5))
    s = draw(arrays(np.float32, (rows, n), elements=st.floats(-1e4, 1e4, width=32)))
    m = draw(arrays(np.bool_, (rows, n)))
    return torch.from_numpy(s), torch.from_numpy(m)


@settings(max_examples=200, deadline=None)
@given(scores_and_mask(), st.floats(0.01, 100))
def test_rows_sum_to_one_masked_are_zero_never_nan(data, temperature):
    scores, mask = data
    w = masked_softmax(scores, mask, temperature=temperature)
    assert torch.isfinite(w).all()
    assert torch.all(w[~mask] == 0)
    assert torch.all((w >= 0) & (w <= 1))
    sums = w.sum(-1)
    empty = fully_masked(mask)
    torch.testing.assert_close(sums[~empty], torch.ones_like(sums[~empty]), atol=1e-5, rtol=0)
    assert torch.all(sums[empty] == 0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_low_precision_softmax_stays_finite_over_the_whole_range(dtype, data):
    """Scores anywhere in the dtype's finite range, no clamping; the top of float16 (±65504)
    overflows exp and sums if the softmax is not computed in float32 with the max subtracted."""
    top = float(torch.finfo(dtype).max)
    n, rows = data.draw(st.integers(1, 8)), data.draw(st.integers(1, 5))
    s = data.draw(arrays(np.float32, (rows, n), elements=st.floats(-top, top, width=32)))
    mask = torch.from_numpy(data.draw(arrays(np.bool_, (rows, n))))
    scores = torch.from_numpy(s).to(dtype)
    scores = scores.nan_to_num(posinf=top, neginf=-top)  # float32 -> bfloat16 rounding
    w = masked_softmax(scores, mask)
    assert w.dtype == dtype
    assert torch.isfinite(w).all()
    assert torch.all(w[~mask] == 0)
    sums, empty = w.float().sum(-1), fully_masked(mask)
    torch.testing.assert_close(sums[~empty], torch.ones_like(sums[~empty]), atol=2e-2, rtol=0)


# rejects: scores computed in float16 (q·k past 65504 is inf, the weights NaN), and outputs
# mixed in float32 but not cast back (dtype check)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("scale", [None, 1e-5])
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), causal=st.booleans())
def test_low_precision_sdpa_past_65504_matches_pytorch(dtype, scale, seed, causal):
    gen = torch.Generator().manual_seed(seed)
    q, k = (torch.randn(2, 2, 5, 4, generator=gen) * 300 for _ in range(2))
    v = torch.randn(2, 2, 5, 4, generator=gen)
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    raw = q.double() @ k.double().transpose(-2, -1)  # (B, H, T, T)
    assert raw.abs().max() > 65504  # the float16 overflow is really reached
    mask = causal_mask(5) if causal else None
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    assert out.dtype == weights.dtype == dtype
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    tol = 1e-2 if dtype == torch.float16 else 3e-2  # one rounding of the output
    torch.testing.assert_close(out.float(), ref.float(), atol=tol, rtol=tol)
    torch.testing.assert_close(weights.float().sum(-1), torch.ones(2, 2, 5), atol=tol, rtol=0)


def test_huge_logits_and_fully_masked_rows_in_the_softmax():
    scores = torch.tensor([[1e4, -1e4, 0.0], [5.0, 5.0, 5.0]])
    mask = torch.tensor([[True, True, True], [False, False, False]])
    w = masked_softmax(scores, mask)
    torch.testing.assert_close(w, torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    assert fully_masked(mask).tolist() == [False, True]


# rejects: a softmax without the row maximum subtracted (exp(1e5) = inf, weights NaN), and a
# fully masked row given uniform weights instead of zeros
def test_sdpa_with_huge_logits_matches_pytorch_and_zeroes_only_fully_masked_rows():
    gen = torch.Generator().manual_seed(0)
    q, k = (torch.randn(1, 4, 3, generator=gen, dtype=torch.float64) * 1e3 for _ in range(2))
    v = torch.randn(1, 4, 3, generator=gen, dtype=torch.float64)
    allowed = causal_mask(4)  # every row keeps at least one key
    assert (q @ k.transpose(-2, -1) / 3**0.5).abs().max() > 1e5  # logits far past exp's range
    out, weights = scaled_dot_product_attention(q, k, v, mask=allowed)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    torch.testing.assert_close(out, ref)
    assert torch.all(weights[..., ~allowed] == 0)
    torch.testing.assert_close(weights.sum(-1), torch.ones(1, 4, dtype=torch.float64))
    none_allowed = allowed.clone()
    none_allowed[2] = False  # one fully masked row: weights and output 0, never NaN
    out, weights = scaled_dot_product_attention(q, k, v, mask=none_allowed)
    assert torch.isfinite(out).all() and torch.all(weights[..., 2, :] == 0)
    assert torch.all(out[..., 2, :] == 0)
    torch.testing.assert_close(out[..., [0, 1, 3], :], ref[..., [0, 1, 3], :])


@given(st.floats(0.01, 100))
def test_temperature_divides_scores(temperature):
    s = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
    torch.testing.assert_close(
        masked_softmax(s, temperature=temperature), torch.softmax(s / temperature, -1)
    )


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_temperature_is_refused(bad):
    with pytest.raises(ValueError, match="temperature"):
        masked_softmax(torch.zeros(3), temperature=bad)


def test_entropy_of_uniform_and_one_hot():
    w = torch.tensor([[0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]])
    torch.testing.assert_close(
        row_entropy(w), torch.tensor([np.log(4.0), 0.0], dtype=torch.float32)
    )
