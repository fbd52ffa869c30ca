"""The interventions page's engine (attnviz.topics.interventions) against oracles written here, on a
tiny random Llama with grouped-query attention (tests/support/tiny_llama.py): patches done with
the test's own hooks on the whole model, the model's own forward pass, a finite difference, and
a forward pass written out from the weights with heads knocked out."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnviz.topics.interventions import ablation, attribution, pairs, patching
from attnviz.topics.interventions.acts import capture
from tests.engine.test_llm_oracles import rms_norm, rotate
from tests.support.tiny_llama import HEAD_DIM, HEADS, KV_HEADS, LAYERS, tiny_llama

CLEAN = "the cat sat on the mat and the cat sat on the log"
CORRUPT = "the cat sat on the mat and the mat sat on the log"


@pytest.fixture(scope="module")
def lm():
    model = tiny_llama()
    with torch.no_grad():  # logit differences of a few units, not hundredths: tolerances bite
        model.model.lm_head.weight.mul_(50.0)
    return model


@pytest.fixture(scope="module")
def pair(lm):
    ids = [pairs.prompt_ids(lm, text, "test") for text in (CLEAN, CORRUPT)]
    assert len(ids[0]) == len(ids[1]) and ids[0] != ids[1]
    shift = logits_of(lm, ids[0]) - logits_of(lm, ids[1])  # the tokens the change moves most
    right, wrong = int(shift.argmax()), int(shift.argmin())
    return pairs.Pair(tuple(ids[0]), tuple(ids[1]), right, wrong)


@pytest.fixture(scope="module")
def runs(lm, pair):
    return capture(lm, pair.clean), capture(lm, pair.corrupt)


def logits_of(lm, ids, hooks=()) -> torch.Tensor:
    """The model's own next-token logits (V,), with the test's (module, pre-hook) pairs on."""
    handles = [module.register_forward_pre_hook(hook) for module, hook in hooks]
    try:
        with torch.no_grad():
            return lm.model(torch.tensor([list(ids)])).logits[0, -1]
    finally:
        for handle in handles:
            handle.remove()


def diff(logits: torch.Tensor, pair) -> float:
    return float(logits[pair.right] - logits[pair.wrong])


def layer_inputs(lm, ids) -> list[torch.Tensor]:
    """(T, D) the input of each decoder layer, from transformers' hidden states."""
    with torch.no_grad():
        out = lm.model(torch.tensor([list(ids)]), output_hidden_states=True)
    return [h[0] for h in out.hidden_states[:LAYERS]]


def head_outputs(lm, ids) -> list[torch.Tensor]:
    """(T, H, d) each layer's heads' outputs: o_proj's input, caught by the test's own hook."""
    caught = []
    hooks = [
        (layer.self_attn.o_proj, lambda _m, args: caught.append(args[0][0].detach().clone()))
        for layer in lm.model.model.layers
    ]
    logits_of(lm, ids, hooks)
    return [z.view(-1, HEADS, HEAD_DIM) for z in caught]


def test_capture_reads_the_models_own_layer_inputs_and_logits(lm, pair, runs):
    clean = runs[0]
    for layer, expected in enumerate(layer_inputs(lm, pair.clean)):
        torch.testing.assert_close(clean.resid[layer], expected, atol=1e-6, rtol=0)
    torch.testing.assert_close(clean.logits, logits_of(lm, pair.clean), atol=1e-5, rtol=0)


def test_patching_the_clean_run_into_itself_changes_nothing(lm, pair, runs):
    clean = runs[0]
    whole = diff(logits_of(lm, pair.clean), pair)
    resid = patching.resid_sweep(lm, pair, clean, clean, run_equal=True)
    heads = patching.head_sweep(lm, pair, clean, clean, run_equal=True)
    assert resid.ran == LAYERS * len(pair.clean) and heads.ran == LAYERS * HEADS
    np.testing.assert_allclose(resid.diff, whole, atol=1e-4)
    np.testing.assert_allclose(heads.diff, whole, atol=1e-4)


def test_patching_every_position_of_a_layer_recovers_the_clean_run(lm, pair, runs):
    clean_logits = logits_of(lm, pair.clean)
    everywhere = list(range(len(pair.clean)))
    for layer in range(LAYERS):
        got = patching.patch_resid(lm, *runs, layer, everywhere)
        torch.testing.assert_close(got, clean_logits, atol=1e-4, rtol=0)


def test_each_residual_patch_equals_the_tests_own_hook_on_the_whole_model(lm, pair, runs):
    sweep = patching.resid_sweep(lm, pair, *runs, run_equal=True)
    source = layer_inputs(lm, pair.clean)
    for layer in range(LAYERS):
        for pos in range(len(pair.clean)):

            def put(_m, args, layer=layer, pos=pos):
                hidden = args[0].clone()
                hidden[0, pos] = source[layer][pos]
                return (hidden, *args[1:])

            module = lm.model.model.layers[layer]
            expected = diff(logits_of(lm, pair.corrupt, [(module, put)]), pair)
            assert sweep.diff[layer, pos] == pytest.approx(expected, abs=1e-4), (layer, pos)


def test_each_head_patch_equals_the_tests_own_hook_on_the_whole_model(lm, pair, runs):
    sweep = patching.head_sweep(lm, pair, *runs)
    source = head_outputs(lm, pair.clean)
    for layer in range(LAYERS):
        for head in range(HEADS):

            def put(_m, args, layer=layer, head=head):
                z = args[0].clone().view(1, -1, HEADS, HEAD_DIM)
                z[0, :, head] = source[layer][:, head]
                return (z.view(args[0].shape),)

            module = lm.model.model.layers[layer].self_attn.o_proj
            expected = diff(logits_of(lm, pair.corrupt, [(module, put)]), pair)
            assert sweep.diff[layer, head] == pytest.approx(expected, abs=1e-4), (layer, head)


def test_cells_left_unrun_are_exactly_the_corrupted_run(lm, pair, runs):
    fast = patching.resid_sweep(lm, pair, *runs)
    full = patching.resid_sweep(lm, pair, *runs, run_equal=True)
    first, t = pair.differ[0], len(pair.clean)
    # causality: the embeddings differ only where the tokens do; later layers from the first on
    assert fast.ran == len(pair.differ) + (LAYERS - 1) * (t - first) < full.ran
    np.testing.assert_allclose(fast.diff, full.diff, atol=1e-5)
    corrupted = diff(logits_of(lm, pair.corrupt), pair)
    np.testing.assert_allclose(fast.diff[:, :first], corrupted, atol=1e-5)


def test_direct_logit_attribution_adds_up_to_the_logit_difference(lm, pair, runs):
    parts = attribution.direct_logit_attribution(lm, runs[0], pair)
    whole = diff(logits_of(lm, pair.clean), pair)
    assert parts.whole == pytest.approx(whole, abs=1e-5)
    assert parts.total == pytest.approx(whole, abs=1e-4)
    assert np.abs(parts.heads).max() > 0.05  # the parts are not all ~0


def test_one_heads_part_equals_its_output_through_the_frozen_norm_written_out(lm, pair, runs):
    """Head 1 of the last layer: z · W_O's slice, times the clean run's 1/rms and the norm's
    weight, dotted with the difference of the two unembedding rows."""
    parts = attribution.direct_logit_attribution(lm, runs[0], pair)
    z = head_outputs(lm, pair.clean)[-1][-1, 1]  # (d,) at the last position
    w_o = lm.model.model.layers[-1].self_attn.o_proj.weight[:, HEAD_DIM : 2 * HEAD_DIM]
    norm, w_u = lm.model.model.norm, lm.model.lm_head.weight
    with torch.no_grad():
        scale = 1 / torch.sqrt(torch.mean(_unnormed(lm, pair) ** 2) + norm.variance_epsilon)
        part = scale * (norm.weight * (w_o @ z)) @ (w_u[pair.right] - w_u[pair.wrong])
    assert abs(float(part)) > 1e-2
    assert parts.heads[-1, 1] == pytest.approx(float(part), abs=1e-5)


def _unnormed(lm, pair) -> torch.Tensor:
    """The final norm's input at the last position (the test's own hook)."""
    caught = []
    hook = (lm.model.model.norm, lambda _m, args: caught.append(args[0][0, -1].clone()))
    logits_of(lm, pair.clean, [hook])
    return caught[0]


def _interpolated_diff(lm, pair, module, source, eps: float, head: int | None) -> float:
    """The corrupted run's logit difference with the activation moved `eps` of the way to the
    clean one (a residual stream's input when head is None, else one head's output)."""

    def move(_m, args):
        x = args[0].clone()
        if head is None:
            x[0] = x[0] + eps * (source - x[0])
        else:
            z = x.view(1, -1, HEADS, HEAD_DIM)
            z[0, :, head] = z[0, :, head] + eps * (source[:, head] - z[0, :, head])
        return (x, *args[1:])

    return diff(logits_of(lm, pair.corrupt, [(module, move)]), pair)


@pytest.mark.parametrize("layer", range(LAYERS))
def test_attribution_patching_equals_a_finite_difference(lm, pair, runs, layer):
    """Central differences of the logit difference along clean − corrupted, per layer: the
    residual stream at every position at once (summed estimate) and each head."""
    est = attribution.attribution(lm, pair, *runs)
    eps = 1e-2
    block = lm.model.model.layers[layer]
    clean_in, clean_z = layer_inputs(lm, pair.clean)[layer], head_outputs(lm, pair.clean)[layer]
    step = _interpolated_diff(lm, pair, block, clean_in, eps, None)
    back = _interpolated_diff(lm, pair, block, clean_in, -eps, None)
    assert est.resid[layer].sum() == pytest.approx((step - back) / (2 * eps), rel=1e-2, abs=1e-3)
    for head in range(HEADS):
        o_proj = block.self_attn.o_proj
        step = _interpolated_diff(lm, pair, o_proj, clean_z, eps, head)
        back = _interpolated_diff(lm, pair, o_proj, clean_z, -eps, head)
        expected = (step - back) / (2 * eps)
        assert est.heads[layer, head] == pytest.approx(expected, rel=1e-2, abs=1e-3), head


def written_out_forward(lm, ids, knocked: dict[int, list[int]], how: str) -> torch.Tensor:
    """The tiny Llama's next-token logits from its weights: RMSNorm, rotary q/k, grouped-query
    causal attention, SwiGLU MLP, with the `knocked` heads' outputs zeroed or replaced by their
    mean over positions before o_proj."""
    model = lm.model.model
    theta = lm.model.config.rope_parameters["rope_theta"]
    x = model.embed_tokens.weight[list(ids)]  # (T, D)
    t = x.shape[0]
    future = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
    for index, layer in enumerate(model.layers):
        a = layer.self_attn
        h = rms_norm(x, layer.input_layernorm)
        q = rotate((h @ a.q_proj.weight.T).view(t, HEADS, HEAD_DIM).transpose(0, 1), theta)
        k = rotate((h @ a.k_proj.weight.T).view(t, KV_HEADS, HEAD_DIM).transpose(0, 1), theta)
        v = (h @ a.v_proj.weight.T).view(t, KV_HEADS, HEAD_DIM).transpose(0, 1)
        z = []
        for head in range(HEADS):
            g = head // (HEADS // KV_HEADS)
            scores = (q[head] @ k[g].T / math.sqrt(HEAD_DIM)).masked_fill(future, -math.inf)
            out = torch.softmax(scores, -1) @ v[g]  # (T, d)
            if head in knocked.get(index, []):
                out = torch.zeros_like(out) if how == "zero" else out.mean(0).expand(t, -1)
            z.append(out)
        x = x + torch.cat(z, -1) @ a.o_proj.weight.T
        h = rms_norm(x, layer.post_attention_layernorm)
        m = layer.mlp
        x = x + (F.silu(h @ m.gate_proj.weight.T) * (h @ m.up_proj.weight.T)) @ m.down_proj.weight.T
    return (rms_norm(x, model.norm) @ lm.model.lm_head.weight.T)[-1]


@pytest.mark.parametrize("how", ablation.HOWS)
def test_knocking_heads_out_equals_the_same_knock_out_written_out(lm, pair, runs, how):
    picked = [(0, 1), (1, 2), (1, 3)]
    got = ablation.ablate(lm, runs[0], picked, how)
    with torch.no_grad():
        expected = written_out_forward(lm, pair.clean, {0: [1], 1: [2, 3]}, how)
        untouched = written_out_forward(lm, pair.clean, {}, how)
    torch.testing.assert_close(got, expected, atol=1e-4, rtol=0)
    assert (got - untouched).abs().max() > 1e-2  # knocking them out changed the logits


def test_heads_are_read_from_text_with_a_message_for_anything_else():
    assert ablation.parse_heads("L23 H3, l29 h1; L23 H3", 30, 9) == ((23, 3), (29, 1))
    assert ablation.parse_heads("  ", 30, 9) == ()
    with pytest.raises(ValueError, match="layers 0–29, heads 0–8"):
        ablation.parse_heads("L30 H1", 30, 9)
    with pytest.raises(ValueError, match="L<layer> H<head>"):
        ablation.parse_heads("=HYPERLINK(1)", 30, 9)


def test_the_pair_has_a_logit_difference_worth_testing(lm, pair, runs):
    clean, corrupt = (r.diff(pair.right, pair.wrong) for r in runs)
    assert clean - corrupt > 0.5, (clean, corrupt)
