"""The step-by-step page's NumPy walk-through (topics/self_attention/steps.py) equals the engine's
core.attention.scaled_dot_product_attention, and its formula titles follow the toggles."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attnviz.core.attention import causal_mask, scaled_dot_product_attention
from attnviz.topics.self_attention.steps import compute_steps, random_input, random_weights


def by_key(steps) -> dict:
    return {step.key: step for step in steps}


# rejects: a walk-through that always divides by √e (or never), that masks without the causal
# toggle, or whose weights or output differ from the engine's attention
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("m, d, e, d2", [(4, 3, 2, 2), (6, 5, 8, 3), (1, 1, 1, 1)])
def test_walk_through_equals_the_engine(causal, scaled, m, d, e, d2):
    weights = random_weights(d, e, d2, seed=m + e)
    z = random_input(m, d, seed=d2)
    steps = by_key(compute_steps(z, weights, causal=causal, scaled=scaled))
    q, k, v = (torch.from_numpy(steps[n].matrix) for n in "QKV")
    mask = causal_mask(m) if causal else None
    out, engine_weights = scaled_dot_product_attention(
        q, k, v, mask=mask, scale=1 / math.sqrt(e) if scaled else 1.0
    )
    np.testing.assert_allclose(steps["weights"].matrix, engine_weights.numpy(), atol=1e-12)
    np.testing.assert_allclose(steps["out"].matrix, out.numpy(), atol=1e-12)
    np.testing.assert_allclose(steps["Q"].matrix, z @ weights.w_q + weights.b_q, atol=1e-12)


@pytest.mark.parametrize("scaled", [False, True])
def test_output_title_follows_the_scaling_toggle(scaled):
    steps = by_key(compute_steps(random_input(3, 2, 0), random_weights(2, 4, 2, 0), scaled=scaled))
    if scaled:
        assert steps["out"].title == "softmax(Q Kᵀ/√e) V"
        assert steps["scaled"].title.startswith("Q Kᵀ ÷ √e")
    else:
        assert steps["out"].title == "softmax(Q Kᵀ) V"
        assert steps["scaled"].title == "Q Kᵀ (scaling off)"


@pytest.mark.parametrize("causal", [False, True])
def test_the_mask_step_says_what_the_switch_does(causal):
    """Repro (issue 10): the mask step's note said "causal" with the mask off."""
    steps = by_key(compute_steps(random_input(3, 2, 0), random_weights(2, 2, 2, 0), causal=causal))
    text = steps["masked"].title + " " + steps["masked"].note
    assert ("causal" in text) is causal
    assert bool(np.isinf(steps["masked"].matrix).any()) == causal
