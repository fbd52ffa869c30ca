"""Masks for long inputs (attnviz.topics.attention_at_scale.masks) against the conditions written
out here as loops over (i, j), PyTorch's SDPA with each mask as attn_mask (the scene's maps
included), the receptive field against min(t, L·(w − 1)), and the O(T) score count against the
mask's sum."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.attention import scaled_dot_product_attention
from attnviz.topics.attention_at_scale.masks import (
    MASKS,
    build_mask,
    count_scores,
    layers_to_reach,
    reach_back,
    scores_computed,
)
from attnviz.topics.attention_at_scale.scene import SCENE, qkv
from attnviz.topics.text.attention import TextConfig, analyse


def allowed(kind: str, i: int, j: int, w: int, r: int, g: int, causal: bool) -> bool:
    """Whether query i may attend to key j, as the page's text defines each mask."""
    if kind == "causal":
        return j <= i
    if causal and j > i:
        return False
    d = abs(i - j)
    if kind == "full":
        return True
    if kind == "sliding window":
        return d < w
    if kind == "dilated":
        return d % r == 0 and d // r < w
    return d < w or i < g or j < g  # global + local


def written_out(kind: str, t: int, w: int, r: int, g: int, causal: bool) -> torch.Tensor:
    return torch.tensor(
        [[allowed(kind, i, j, w, r, g, causal) for j in range(t)] for i in range(t)],
        dtype=torch.bool,
    ).reshape(t, t)


SIZES = st.tuples(
    st.integers(1, 14), st.integers(1, 5), st.integers(1, 3), st.integers(0, 3), st.booleans()
)


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(MASKS), sizes=SIZES)
def test_each_mask_is_its_condition_and_its_count_is_its_sum(kind, sizes):
    t, w, r, g, causal = sizes
    mask = build_mask(kind, t, w, r, g, causal)
    assert torch.equal(mask, written_out(kind, t, w, r, g, causal))
    assert scores_computed(mask) == count_scores(kind, t, w, r, g, causal) == int(mask.sum())


def test_a_causal_window_keeps_w_keys_a_row_once_past_the_start():
    mask = build_mask("sliding window", 10, w=3, causal=True)
    assert mask.sum(1).tolist() == [1, 2] + [3] * 8
    assert count_scores("sliding window", 8192, w=3, causal=True) == 3 * 8192 - 3


@pytest.mark.parametrize("kind", MASKS)
def test_every_mask_gives_what_torch_sdpa_gives_with_it_as_attn_mask(kind):
    gen = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 9, 8, generator=gen) for _ in "qkv")  # (H, T, d)
    mask = build_mask(kind, 9, w=2, r=2, g=1, causal=False)
    ours, weights = scaled_dot_product_attention(q, k, v, mask)
    torch.testing.assert_close(ours, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    assert torch.all(weights[:, ~mask] == 0)


def test_the_scene_s_maps_are_the_text_layer_s_weights_under_each_mask():
    values = SCENE.values(sc_w=2, sc_g=2)
    out = SCENE.run(SCENE.config(values))
    q, k, v = qkv(out.tokens, TextConfig(seed=values["seed"]))
    text = analyse(values["sc_text"], TextConfig(seed=values["seed"]))  # the text page's weights
    np.testing.assert_allclose(out.maps["full"], text.weights, atol=1e-6)
    for kind in MASKS:
        mask = torch.from_numpy(out.masks[kind])
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        got = torch.from_numpy(out.maps[kind]) @ v
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(("w", "layers"), [(2, 1), (3, 2), (3, 4), (5, 3), (1, 3)])
def test_a_causal_window_reaches_min_t_and_l_times_w_minus_1_back(w, layers):
    t = 20
    found = reach_back(build_mask("sliding window", t, w=w, causal=True), layers)
    assert found.tolist() == [min(i, layers * (w - 1)) for i in range(t)]


def test_layers_to_reach_counts_the_hops_and_one_global_token_joins_all_in_two():
    first = layers_to_reach(build_mask("sliding window", 7, w=2, causal=True), 6)
    hops = [[i - j + (i == j) if j <= i else 0 for j in range(7)] for i in range(7)]
    assert first.tolist() == hops  # one hop back a layer; a token holds itself from layer 1
    glob = layers_to_reach(build_mask("global + local", 12, w=2, g=1), 2)
    assert bool((glob > 0).all())
    assert not bool((layers_to_reach(build_mask("sliding window", 12, w=2), 2) > 0).all())
