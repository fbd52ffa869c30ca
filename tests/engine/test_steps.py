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
    assert steps["masked"].changes is causal  # off: the page draws no copy of step 4


# The page's scene (topics/self_attention/scene.py): hand edits arrive as URL text.
def scene_run(**values):
    from attnviz.topics.self_attention.scene import SCENE

    vals = SCENE.values(sa_m=2, sa_d=2, sa_e=2, sa_d2=2, **values)
    return SCENE, vals, SCENE.run(SCENE.config(vals))


def test_scene_reads_hand_edits_and_ignores_bias_edits_with_biases_off():
    _, _, out = scene_run(sa_z="1,0;0,1", sa_wq="1,0;0,1", sa_bq="10,-10")
    np.testing.assert_allclose(out.steps["Q"].matrix, [[11.0, -10.0], [10.0, -9.0]])  # zW_q + B_q
    _, _, off = scene_run(sa_z="1,0;0,1", sa_wq="1,0;0,1", sa_bq="10,-10", sa_bias=False)
    np.testing.assert_allclose(off.steps["Q"].matrix, np.eye(2))


@pytest.mark.parametrize(
    ("text", "why"), [("1,2,3", "expected 2 × 2"), ("1,x;2,3", "not a number")]
)
def test_scene_says_which_hand_edit_cannot_be_read(text, why):
    from attnviz.topics.scene import SceneInputError

    with pytest.raises(SceneInputError, match=f"W_k.*{why}"):
        scene_run(sa_wk=text)


def test_scene_views_follow_the_reveal_and_the_answer_is_the_top_key():
    scene, vals, out = scene_run(sa_reveal="Q, K, V")
    assert list(scene.views(out, vals)) == ["step_z", "step_Q", "step_K", "step_V"]
    vals = scene.values(vals, sa_open_w=True)  # the weights' expander open
    assert list(scene.views(out, vals)) == [
        *("step_z", "step_Q", "step_K", "step_V"),
        *("W_q", "B_q", "W_k", "B_k", "W_v", "B_v"),
    ]
    assert list(scene.views(out, scene.values(vals, sa_reveal="z"))) == ["step_z"]
    # Q = z, K = 5z, no biases: query 1 matches key 1 (score 5/√2 against 0)
    edits = {"sa_z": "1,0;0,1", "sa_wq": "1,0;0,1", "sa_wk": "5,0;0,5", "sa_bias": False}
    scene, vals, out = scene_run(sa_i=1, **edits)
    answer = scene.answers(out, vals)["top_key"]
    assert (answer.answer, answer.options) == ("patch 1", ("patch 0", "patch 1"))
