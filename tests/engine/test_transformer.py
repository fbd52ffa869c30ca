"""The tiny transformer against oracles: SDPA, hook transparency, causal zeros, ablation,
save/load."""

from __future__ import annotations

import io
import json
import pickle

import pytest
import torch
import torch.nn.functional as F

from attnviz.core.hooks import run_with_cache
from attnviz.models.checkpoint import load_model, save_model
from attnviz.models.transformer import (
    TinyTransformer,
    TransformerConfig,
    ablate_heads,
    attention_hook_name,
    attention_maps,
)


def model(causal=False, n_layer=2, n_head=2, positional="learned") -> TinyTransformer:
    torch.manual_seed(0)
    cfg = TransformerConfig(
        vocab_size=11,
        n_layer=n_layer,
        n_head=n_head,
        d_model=16,
        d_ff=32,
        max_len=12,
        causal=causal,
        positional=positional,
    )
    return TinyTransformer(cfg).eval()


IDS = torch.randint(0, 11, (3, 9), generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize("causal", [False, True])
def test_captured_weights_equal_sdpa_on_the_same_inputs(causal):
    net = model(causal)
    captured = {}
    attn = net.blocks[1].attn

    def grab_input(_mod, args, _out):
        captured["z"] = args[0]

    handle = attn.register_forward_hook(grab_input)
    _, cache = run_with_cache(net, IDS)
    handle.remove()
    z = captured["z"]  # (B, T, D) the attention's input
    b, t, _ = z.shape
    q, k, v = (
        p(z).view(b, t, 2, 8).transpose(1, 2) for p in (attn.q_proj, attn.k_proj, attn.v_proj)
    )
    ref_out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    ours = cache[attention_hook_name(1)] @ v
    torch.testing.assert_close(ours, ref_out, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("positional", ["learned", "sinusoidal", "none"])
def test_hooks_do_not_change_outputs(positional):
    net = model(positional=positional)
    with torch.no_grad():
        plain = net(IDS)  # fused fast path
    hooked, cache = run_with_cache(net, IDS)
    torch.testing.assert_close(hooked, plain, atol=1e-5, rtol=1e-5)
    maps = attention_maps(cache, 2)
    assert maps.shape == (2, 3, 2, 9, 9)
    torch.testing.assert_close(maps.sum(-1), torch.ones(2, 3, 2, 9))


def test_causal_weights_above_diagonal_are_exactly_zero():
    _, cache = run_with_cache(model(causal=True), IDS)
    maps = attention_maps(cache, 2)
    upper = torch.triu(torch.ones(9, 9, dtype=torch.bool), 1)
    assert torch.all(maps[..., upper] == 0)


def test_ablation_changes_output_and_ablating_nothing_does_not():
    net = model()
    with torch.no_grad():
        plain = net(IDS)
    torch.testing.assert_close(ablate_heads(net, IDS, []), plain, atol=1e-6, rtol=0)
    knocked = ablate_heads(net, IDS, [(0, 1)])
    assert (knocked - plain).abs().max() > 1e-3


def test_save_load_gives_identical_logits():
    net = model(causal=True)
    weights, config = save_model(net, {"task": {"name": "copy"}})
    again, extra = load_model(weights, config)
    assert extra == {"task": {"name": "copy"}}
    with torch.no_grad():
        assert torch.equal(again(IDS), net(IDS))


def test_pickle_and_malformed_files_are_refused():
    net = model()
    weights, config = save_model(net)
    buf = io.BytesIO()
    torch.save(net.state_dict(), buf)
    for bad in (pickle.dumps({"x": 1}), buf.getvalue(), b"", b"\x00" * 64):
        with pytest.raises(ValueError, match="safetensors"):
            load_model(bad, config)
    for bad_config in (
        "{",
        "[]",
        json.dumps({"model": {"evil": 1}}),
        json.dumps({"model": {"n_head": 3}}),
    ):
        with pytest.raises(ValueError):
            load_model(weights, bad_config)
    other = json.loads(config)
    other["model"]["d_model"] = 32
    with pytest.raises(ValueError, match="do not fit"):
        load_model(weights, json.dumps(other))


def test_bad_config_and_too_long_input_are_clear():
    with pytest.raises(ValueError, match="divisible"):
        TinyTransformer(TransformerConfig(d_model=10, n_head=3))
    with pytest.raises(ValueError, match="longer than max_len"):
        model()(torch.zeros(1, 13, dtype=torch.long))
