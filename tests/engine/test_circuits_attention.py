"""The attention variants of the sinks experiment (core.attention.normalise_scores: softmax,
softmax-plus-one, sigmoid) against the torch formulas written out here, and the tiny
transformer's additions: attention-only blocks, a variant's weights through the hooks, a mask."""

import math

import pytest
import torch

from attnviz.core.attention import (
    causal_mask,
    normalise_scores,
    scaled_dot_product_attention,
)
from attnviz.core.hooks import run_with_cache
from attnviz.models.transformer import TinyTransformer, TransformerConfig, attention_hook_name


def scores_and_mask(seed=0, t=5):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(2, 3, t, t, generator=gen, dtype=torch.float64) * 3, causal_mask(t)


def oracle(kind: str, s: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if kind == "softmax1":
        e = torch.exp(s) * mask
        return e / (1 + e.sum(-1, keepdim=True))
    if kind == "sigmoid":
        return torch.sigmoid(s - math.log(s.shape[-1])) * mask
    return torch.softmax(s.masked_fill(~mask, float("-inf")), -1)


@pytest.mark.parametrize("kind", ["softmax", "softmax1", "sigmoid"])
def test_each_variant_matches_its_formula(kind):
    s, mask = scores_and_mask()
    torch.testing.assert_close(normalise_scores(s, mask, kind), oracle(kind, s, mask))
    q, k, v = (torch.randn(2, 3, 5, 4, dtype=torch.float64) for _ in range(3))
    out, w = scaled_dot_product_attention(q, k, v, mask, normalise=kind)
    want = oracle(kind, q @ k.transpose(-2, -1) / 2.0, mask)
    torch.testing.assert_close(w, want)
    torch.testing.assert_close(out, want @ v)


def test_softmax_plus_one_rows_sum_below_one_and_sigmoid_rows_are_not_normalised():
    s, mask = scores_and_mask(1)
    plus_one = normalise_scores(s, mask, "softmax1").sum(-1)
    assert (plus_one < 1).all() and (plus_one > 0).all()
    sums = normalise_scores(s * 4, mask, "sigmoid").sum(-1)
    assert (sums - 1).abs().max() > 0.5  # some rows far from 1: each weight is on its own
    assert torch.allclose(
        normalise_scores(s, mask, "softmax").sum(-1), torch.ones(2, 3, 5, dtype=s.dtype)
    )


def test_softmax_plus_one_is_stable_for_huge_scores():
    s = torch.tensor([[1000.0, 999.0, -1000.0]])
    w = normalise_scores(s, None, "softmax1")
    e = torch.exp(torch.tensor([0.0, -1.0, -2000.0]))
    torch.testing.assert_close(w, (e / (math.exp(-1000) + e.sum()))[None])


def test_an_unknown_variant_is_refused_by_name():
    with pytest.raises(ValueError, match="softmax1"):
        normalise_scores(torch.zeros(2, 2), None, "relu")
    assert "attention must be one of" in TransformerConfig(attention="relu").problems()[0]


def test_attention_only_blocks_have_no_mlp_and_the_default_keeps_it():
    plain = TinyTransformer(TransformerConfig(n_layer=2))
    bare = TinyTransformer(TransformerConfig(n_layer=2, mlp=False))
    assert any(".mlp." in name for name, _ in plain.named_parameters())
    assert not any(".mlp." in name or ".ln2." in name for name, _ in bare.named_parameters())


@pytest.mark.parametrize("kind", ["softmax1", "sigmoid"])
def test_a_variant_model_shows_its_weights_and_never_takes_the_fused_softmax(kind):
    torch.manual_seed(0)
    model = TinyTransformer(
        TransformerConfig(n_layer=1, n_head=2, causal=True, attention=kind)
    ).eval()
    ids = torch.randint(0, 16, (2, 7))
    logits, cache = run_with_cache(model, ids)
    with torch.no_grad():
        torch.testing.assert_close(model(ids), logits)  # the uncaptured path is the same variant
    scores = cache[attention_hook_name(0, "hook_scores")]
    weights = cache[attention_hook_name(0, "hook_weights")]
    torch.testing.assert_close(weights, oracle(kind, scores, causal_mask(7)))


def test_a_given_mask_replaces_the_causal_one():
    torch.manual_seed(0)
    model = TinyTransformer(TransformerConfig(n_layer=1, causal=True, mlp=False)).eval()
    ids = torch.randint(0, 16, (1, 6))
    only_self = torch.eye(6, dtype=torch.bool)
    with torch.no_grad():
        same = model(ids, causal_mask(6))
        torch.testing.assert_close(same, model(ids))
    _, cache = run_with_cache(model, ids, only_self)
    torch.testing.assert_close(cache[attention_hook_name(0)][0, 0], only_self.float())
