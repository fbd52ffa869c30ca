"""Invariants of the masked softmax and attention, checked with hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnviz.core.attention import (
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
@given(data=scores_and_mask())
def test_low_precision_stays_finite(dtype, data):
    scores, mask = data
    scores = scores.clamp(-6e4, 6e4).to(dtype)
    w = masked_softmax(scores, mask)
    assert w.dtype == dtype
    assert torch.isfinite(w).all()
    assert torch.all(w[~mask] == 0)


def test_huge_logits_and_fully_masked_rows():
    scores = torch.tensor([[1e4, -1e4, 0.0], [5.0, 5.0, 5.0]])
    mask = torch.tensor([[True, True, True], [False, False, False]])
    w = masked_softmax(scores, mask)
    torch.testing.assert_close(w, torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    assert fully_masked(mask).tolist() == [False, True]
    out, weights = scaled_dot_product_attention(
        torch.randn(1, 3, 2) * 1e3,
        torch.randn(1, 3, 2) * 1e3,
        torch.randn(1, 3, 2),
        mask=torch.zeros(3, 3, dtype=torch.bool),
    )
    assert torch.isfinite(out).all() and torch.all(weights == 0)


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
