"""The attention variants of 2024–26 (models/variant_attention.py) against oracles written here:
grouped-query equals 2017's multi-head module with its key/value heads repeated; multi-query is
grouped-query with one group; the latent variant equals its up-projected keys and values fed to
PyTorch's own attention; the sink is softmax over the scores plus one extra column, dropped;
gated is σ(xW_g) ⊙ attention; differential is the written-out difference of two softmax maps.
And the hooks change nothing: the fused path (nothing captured) gives the explicit path's output."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from attnviz.core.hooks import run_with_cache
from attnviz.models.attention_layer import MultiHeadSelfAttention, SelfAttentionConfig
from attnviz.models.transformer import TransformerConfig
from attnviz.models.variant_attention import VARIANTS, VariantAttention, VariantConfig
from attnviz.models.variant_transformer import VariantModelConfig, VariantTransformer

B, T, D, H = 2, 7, 16, 4
DH = D // H
CAUSAL = torch.ones(T, T, dtype=torch.bool).tril()


def layer(kind: str, **more) -> VariantAttention:
    torch.manual_seed(3)
    module = VariantAttention(VariantConfig(kind, d_model=D, n_heads=H, **more)).eval()
    with torch.no_grad():  # nothing starts at zero: the sink and the biases matter too
        for p in module.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return module


def inputs() -> torch.Tensor:
    return torch.randn(B, T, D, generator=torch.Generator().manual_seed(5))  # (B, T, D)


def reference(q, k, v, mask=CAUSAL) -> torch.Tensor:
    """PyTorch's attention, heads (B, H, T, Dh) -> (B, T, D) merged by hand."""
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # (B, H, T, Dh)
    return out.transpose(1, 2).reshape(B, T, D)


def heads(x: torch.Tensor, n: int) -> torch.Tensor:
    return x.view(B, T, n, x.shape[-1] // n).transpose(1, 2)  # (B, n, T, ·)


def test_grouped_query_equals_multi_head_with_repeated_keys_and_values():
    gqa, z = layer("gqa", n_kv_heads=2), inputs()
    mha = MultiHeadSelfAttention(SelfAttentionConfig(D, H)).eval()
    with torch.no_grad():  # query head h reads key/value head h // 2: rows of W_k repeated
        for name in ("q_proj", "o_proj"):
            getattr(mha, name).load_state_dict(getattr(gqa, name).state_dict())
        for name in ("k_proj", "v_proj"):
            w, b = getattr(gqa, name).weight, getattr(gqa, name).bias  # (2·Dh, D), (2·Dh,)
            rows = torch.cat([torch.arange(DH) + (h // 2) * DH for h in range(H)])
            getattr(mha, name).weight.copy_(w[rows])
            getattr(mha, name).bias.copy_(b[rows])
    torch.testing.assert_close(gqa(z, CAUSAL), mha(z, CAUSAL))


def test_multi_query_is_grouped_query_with_one_group():
    mqa, z = layer("mqa"), inputs()
    gqa = VariantAttention(VariantConfig("gqa", d_model=D, n_heads=H, n_kv_heads=1)).eval()
    gqa.load_state_dict(mqa.state_dict())
    assert mqa.k_proj.weight.shape == (DH, D)  # one key head of Dh for all four query heads
    q = heads(mqa.q_proj(z), H)
    k, v = mqa.k_proj(z)[:, None], mqa.v_proj(z)[:, None]  # (B, 1, T, Dh): shared by every head
    want = mqa.o_proj(reference(q, k.expand(B, H, T, DH), v.expand(B, H, T, DH)))
    torch.testing.assert_close(mqa(z, CAUSAL), want)
    torch.testing.assert_close(gqa(z, CAUSAL), want)


def test_latent_equals_its_up_projected_keys_and_values_in_plain_attention():
    mla, z = layer("mla", latent=6), inputs()
    latent = z @ mla.kv_down.weight.T  # (B, T, 6): what a decoder caches
    k = latent @ mla.k_up.weight.T + mla.k_up.bias  # (B, T, D)
    v = latent @ mla.v_up.weight.T + mla.v_up.bias
    q = z @ mla.q_proj.weight.T + mla.q_proj.bias
    want = mla.o_proj(reference(heads(q, H), heads(k, H), heads(v, H)))
    torch.testing.assert_close(mla(z, CAUSAL), want)


def test_sink_is_softmax_over_the_scores_and_one_extra_column_then_dropped():
    sink, z = layer("sink", window=3), inputs()
    q, k, v = (heads(p(z), H) for p in (sink.q_proj, sink.k_proj, sink.v_proj))
    i = torch.arange(T)
    allowed = (i[:, None] >= i[None, :]) & (i[:, None] - i[None, :] < 3)  # the window of 3
    scores = (q @ k.transpose(-1, -2) / math.sqrt(DH)).masked_fill(~allowed, -math.inf)
    column = sink.sink.view(1, H, 1, 1).expand(B, H, T, 1)  # one extra logit a head
    weights = torch.softmax(torch.cat([scores, column], -1), -1)[..., :-1]  # (B, H, T, T)
    out, cache = run_with_cache(sink, z, CAUSAL)
    torch.testing.assert_close(cache["hook_weights"], weights)
    torch.testing.assert_close(out, sink.o_proj((weights @ v).transpose(1, 2).reshape(B, T, D)))
    assert (weights.sum(-1) < 1).all()  # the sink took its share of every row


def test_gated_is_the_sigmoid_of_x_w_g_times_attention():
    gated, z = layer("gated"), inputs()
    q, k, v = (heads(p(z), H) for p in (gated.q_proj, gated.k_proj, gated.v_proj))
    gate = torch.sigmoid(z @ gated.gate.weight.T + gated.gate.bias)  # (B, T, D)
    want = gated.o_proj(gate * reference(q, k, v))
    torch.testing.assert_close(gated(z, CAUSAL), want)


def test_differential_is_the_written_out_difference_of_two_softmax_maps():
    diff, z = layer("diff"), inputs()
    q, k, v = (heads(p(z), H) for p in (diff.q_proj, diff.k_proj, diff.v_proj))
    half = DH // 2

    def softmax_map(qs, ks):
        s = (qs @ ks.transpose(-1, -2) / math.sqrt(half)).masked_fill(~CAUSAL, -math.inf)
        return torch.softmax(s, -1)  # (B, H, T, T)

    a1 = softmax_map(q[..., :half], k[..., :half])
    a2 = softmax_map(q[..., half:], k[..., half:])
    weights = a1 - diff.lam.view(1, H, 1, 1) * a2
    out, cache = run_with_cache(diff, z, CAUSAL)
    torch.testing.assert_close(cache["hook_weights"], weights)
    torch.testing.assert_close(out, diff.o_proj((weights @ v).transpose(1, 2).reshape(B, T, D)))


@pytest.mark.parametrize("kind", VARIANTS)
def test_hooks_change_nothing_and_capture_every_layer(kind):
    torch.manual_seed(0)
    shape = TransformerConfig(vocab_size=11, n_layer=2, n_head=H, d_model=D, max_len=T, causal=True)
    model = VariantTransformer(VariantModelConfig(shape, VariantConfig(kind, window=3))).eval()
    ids = torch.randint(0, 11, (B, T), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        plain = model(ids)  # the fused kernel where the variant allows it
    captured, cache = run_with_cache(model, ids)
    torch.testing.assert_close(captured, plain)
    for i in range(2):
        weights = cache[f"blocks.{i}.attn.hook_weights"]  # (B, H, T, T)
        assert weights.shape == (B, H, T, T)
        assert (weights.triu(1) == 0).all()  # causal: nothing above the diagonal
