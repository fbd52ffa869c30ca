"""A language model held as TransformerLens users hold one (issue 56): `av.language_model(model)
.run_with_cache(prompt)` gives the logits and every layer's activations by name. Each is checked
against what the tiny Llama itself computes in the test: Hugging Face's own attention weights,
hidden states and logits, and the queries, values and outputs recomputed from the layers'
weights (RMSNorm, q_proj, v_proj, o_proj) on the cached residual stream."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.topics.scene import SceneInputError
from tests.support.tiny_llama import HEAD_DIM, HEADS, KV_HEADS, LAYERS, tiny_llama

PROMPT = "the cat sat on the mat because it was tired"


@pytest.fixture(scope="module")
def tiny():
    return tiny_llama()


@pytest.fixture(scope="module")
def held(tiny):
    lm = av.language_model(tiny)
    logits, cache = lm.run_with_cache(PROMPT)
    ids = torch.tensor([list(cache.ids)])
    with torch.no_grad():
        ref = tiny.model(ids, output_attentions=True, output_hidden_states=True)
    return tiny.model, logits, cache, ref


def test_the_pattern_and_logits_are_the_models_own(held):
    model, logits, cache, ref = held
    for layer in range(LAYERS):
        assert cache["pattern", layer].shape == (HEADS, len(cache.ids), len(cache.ids))
        np.testing.assert_allclose(cache["pattern", layer], ref.attentions[layer][0], atol=1e-6)
    np.testing.assert_allclose(logits, ref.logits[0], atol=1e-5)


def test_the_residual_stream_is_the_models_hidden_states(held):
    model, _, cache, ref = held
    np.testing.assert_allclose(cache["resid_pre", 0], ref.hidden_states[0][0], atol=1e-6)
    for layer in range(LAYERS - 1):
        np.testing.assert_allclose(
            cache["resid_post", layer], ref.hidden_states[layer + 1][0], atol=1e-5
        )
    # Hugging Face's last hidden state is after the final norm: the norm of the last resid_post
    with torch.no_grad():
        normed = model.model.norm(torch.from_numpy(cache["resid_post", LAYERS - 1]))
    np.testing.assert_allclose(normed, ref.hidden_states[LAYERS][0], atol=1e-5)


def test_queries_values_and_head_outputs_follow_from_the_layers_weights(held):
    model, _, cache, _ = held
    t = len(cache.ids)
    for index, layer in enumerate(model.model.layers):
        with torch.no_grad():
            x = layer.input_layernorm(torch.from_numpy(cache["resid_pre", index]))  # (T, D)
            q = layer.self_attn.q_proj(x).view(t, HEADS, HEAD_DIM)
            v = layer.self_attn.v_proj(x).view(t, KV_HEADS, HEAD_DIM)
            out = layer.self_attn.o_proj(torch.from_numpy(cache["z", index]).reshape(t, -1))
        np.testing.assert_allclose(cache["q", index], q, atol=1e-5)
        np.testing.assert_allclose(cache["v", index], v, atol=1e-5)
        np.testing.assert_allclose(cache["attn_out", index], out, atol=1e-5)
        assert cache["k", index].shape == (t, KV_HEADS, HEAD_DIM)


def test_each_layer_adds_its_attention_and_mlp_outputs_to_the_stream(held):
    _, _, cache, _ = held
    for layer in range(LAYERS):
        added = cache["resid_pre", layer] + cache["attn_out", layer] + cache["mlp_out", layer]
        np.testing.assert_allclose(added, cache["resid_post", layer], atol=1e-5)


NAMES_MLP = ("gate_proj", "up_proj", "down_proj")


def rms_normed(x: np.ndarray, norm: torch.nn.Module) -> np.ndarray:
    """x / √(mean x² + ε) ⊙ γ, row by row, written out here (the Llama RMSNorm)."""
    rms = np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + norm.variance_epsilon)
    return x / rms * norm.weight.detach().numpy()


def test_every_number_of_a_block_follows_from_its_weights(held):
    """The norms, the stream between and the SwiGLU MLP's gate, up, product and output, from
    the cached stream and the layers' weights; the final norm is Hugging Face's last hidden
    state."""
    model, _, cache, ref = held
    for index, layer in enumerate(model.model.layers):
        mlp = {name: getattr(layer.mlp, name).weight.detach().numpy() for name in NAMES_MLP}
        normed = rms_normed(cache["resid_pre", index], layer.input_layernorm)
        np.testing.assert_allclose(cache["ln1", index], normed, atol=1e-5)
        mid = cache["resid_pre", index] + cache["attn_out", index]
        np.testing.assert_allclose(cache["resid_mid", index], mid, atol=1e-5)
        normed2 = rms_normed(mid, layer.post_attention_layernorm)
        np.testing.assert_allclose(cache["ln2", index], normed2, atol=1e-5)
        gate, up = normed2 @ mlp["gate_proj"].T, normed2 @ mlp["up_proj"].T  # (T, F)
        np.testing.assert_allclose(cache["mlp_pre", index], gate, atol=1e-5)
        np.testing.assert_allclose(cache["mlp_pre_linear", index], up, atol=1e-5)
        product = gate / (1 + np.exp(-gate)) * up  # SiLU(gate) ⊙ up
        np.testing.assert_allclose(cache["mlp_post", index], product, atol=1e-5)
        down = product @ mlp["down_proj"].T  # (T, D)
        np.testing.assert_allclose(cache["mlp_out", index], down, atol=1e-5)
    np.testing.assert_allclose(cache["ln_final"], ref.hidden_states[LAYERS][0], atol=1e-5)


def test_only_the_names_asked_for_are_kept(held, tiny):
    _, logits, cache, _ = held
    fewer_logits, fewer = av.language_model(tiny).run_with_cache(PROMPT, names=["pattern", "ln2"])
    assert fewer.keys() == ["pattern", "ln2"]
    np.testing.assert_array_equal(fewer["pattern", 1], cache["pattern", 1])
    np.testing.assert_array_equal(fewer["ln2", 0], cache["ln2", 0])
    np.testing.assert_array_equal(fewer_logits, logits)
    with pytest.raises(SceneInputError, match="no activation 'scores': the names are resid_pre"):
        av.language_model(tiny).run_with_cache(PROMPT, names=["scores"])


def test_a_wrong_name_or_layer_is_told_what_there_is(held):
    _, _, cache, _ = held
    with pytest.raises(SceneInputError, match="the names kept are resid_pre, ln1, q"):
        cache["attention", 0]
    with pytest.raises(SceneInputError, match=f"layer {LAYERS} is out of range: there are"):
        cache["pattern", LAYERS]
    with pytest.raises(SceneInputError, match=r"cache\[name, layer\]"):
        cache["pattern"]
    assert cache.keys() == [*av.api.cache.NAMES, "ln_final"]


def test_the_head_view_draws_a_cached_pattern(held):
    _, _, cache, _ = held
    view = av.head_view(cache["pattern", 1], cache.tokens)
    assert [lines["head"] for lines in view.data["heads"]] == list(range(HEADS))
    assert view.data["tokens"] == cache.tokens


CLEAN = "the cat sat on the mat and the cat sat on the log"
CORRUPT = "the cat sat on the mat and the mat sat on the log"


@pytest.fixture(scope="module")
def patching(tiny):
    return tiny, av.language_model(tiny).patching(CLEAN, CORRUPT)


def logit_difference(model, text_ids, right: int, wrong: int) -> float:
    """The model's own next-token logit difference after `text_ids`."""
    with torch.no_grad():
        logits = model(torch.tensor([list(text_ids)])).logits[0, -1]
    return float(logits[right] - logits[wrong])


def test_patching_labels_its_arrays_and_starts_from_the_models_own_logit_differences(patching):
    wrapped, pair = patching
    right, wrong = pair.pair.right, pair.pair.wrong
    clean = logit_difference(wrapped.model, pair.pair.clean, right, wrong)
    corrupted = logit_difference(wrapped.model, pair.pair.corrupt, right, wrong)
    resid = pair.residual()
    t = len(pair.pair.clean)
    assert resid.values.shape == (LAYERS, t) and resid.columns == wrapped.readable(
        list(pair.pair.clean)
    )
    assert resid.rows == [f"layer {layer}" for layer in range(LAYERS)]
    assert resid.clean == pytest.approx(clean, abs=1e-4)
    assert resid.corrupted == pytest.approx(corrupted, abs=1e-4)
    # a position where the two prompts hold the same token, patched into the first layer's
    # input, changes nothing: the corrupted run's difference
    same = [p for p in range(t) if pair.pair.clean[p] == pair.pair.corrupt[p]]
    np.testing.assert_allclose(resid.values[0, same], corrupted, atol=1e-4)


def test_head_patching_attribution_and_dla_are_labelled_by_layer_and_head(patching):
    wrapped, pair = patching
    heads = pair.heads()
    assert heads.values.shape == (LAYERS, HEADS) and heads.columns[-1] == f"head {HEADS - 1}"
    resid, by_head = pair.attribute()
    assert resid.values.shape == (LAYERS, len(pair.pair.clean)) and by_head.values.shape == (
        LAYERS,
        HEADS,
    )
    parts = pair.dla()
    assert parts.values.shape == (LAYERS, HEADS) and parts.what.startswith("its part")


def test_a_pair_the_model_cannot_use_is_told_why():
    with pytest.raises(SceneInputError, match="same number of tokens"):
        av.language_model(tiny_llama()).patching("the cat sat", "the cat sat on the mat")


def test_the_value_weighted_map_is_the_norm_of_each_weighted_value_through_w_o(held, tiny):
    """Kobayashi et al.'s norm-based share, written out here from the layer's weights: the value
    of source j (v_proj on the normed stream), head h's columns of o_proj, the model's own
    weight α_ij, then ‖α_ij W_O^h v_j‖ over the row's sum."""
    model, _, cache, ref = held
    lm = av.language_model(tiny)
    t, per = len(cache.ids), HEADS // KV_HEADS
    for index, layer in enumerate(model.model.layers):
        shares = lm.value_weighted(cache, index)
        with torch.no_grad():
            x = layer.input_layernorm(torch.from_numpy(cache["resid_pre", index]))
            v = layer.self_attn.v_proj(x).view(t, KV_HEADS, HEAD_DIM)
            w_o = layer.self_attn.o_proj.weight.detach()  # (D, H·d)
        alpha = ref.attentions[index][0]  # (H, T, T)
        for h in range(HEADS):
            w_h = w_o[:, h * HEAD_DIM : (h + 1) * HEAD_DIM]
            for i in range(t):
                parts = [float((alpha[h, i, j] * (w_h @ v[j, h // per])).norm()) for j in range(t)]
                np.testing.assert_allclose(shares[h, i], np.array(parts) / sum(parts), atol=1e-5)


def test_a_heads_output_is_the_sum_of_what_each_source_adds(held, tiny):
    _, _, cache, _ = held
    lm = av.language_model(tiny)
    query = len(cache.ids) - 1
    for layer in range(LAYERS):
        heads = [lm.head_output(cache, layer, h, query) for h in range(HEADS)]
        summed = sum(out.parts.sum(0) for out in heads)  # over sources, then heads: (D,)
        np.testing.assert_allclose(summed, cache["attn_out", layer][query], atol=1e-5)
        assert heads[0].sources == cache.tokens
        np.testing.assert_allclose(heads[0].norms, np.linalg.norm(heads[0].parts, axis=-1))
    with pytest.raises(SceneInputError, match="head"):
        lm.head_output(cache, 0, HEADS, query)


def test_what_every_head_writes_plus_the_rest_is_the_models_own_logits(held, tiny):
    """Direct logit attribution per head (issue 57, item 2): the effects of every head at the last
    position, plus the embedding's and every MLP's written out here through Hugging Face's
    final-norm scale and lm_head with the division frozen at this run's, give the model's own
    logits there (the final norm is linear once its division is frozen)."""
    model, _, cache, ref = held
    lm = av.language_model(tiny)
    query = len(cache.ids) - 1
    heads = [
        lm.head_logits(cache, layer, h, query) for layer in range(LAYERS) for h in range(HEADS)
    ]
    final = torch.from_numpy(cache["resid_post", LAYERS - 1][query])
    rms = final.pow(2).mean().add(model.model.norm.variance_epsilon).sqrt()
    rest = torch.from_numpy(cache["resid_pre", 0][query])  # the embedding
    for layer in range(LAYERS):
        rest = rest + torch.from_numpy(cache["mlp_out", layer][query])
    with torch.no_grad():
        from_rest = model.lm_head(model.model.norm.weight * rest / rms)  # (V,)
    summed = sum(out.effect for out in heads) + from_rest.numpy()
    np.testing.assert_allclose(summed, ref.logits[0, query], atol=1e-4)


def test_a_heads_logit_effect_names_the_tokens_it_promotes_and_suppresses(held, tiny):
    _, _, cache, _ = held
    lm = av.language_model(tiny)
    out = lm.head_logits(cache, 1, 0, len(cache.ids) - 1)
    up, down = out.promoted(3), out.suppressed(3)
    assert [v for _, v in up] == sorted(out.effect)[::-1][:3]
    assert [v for _, v in down] == sorted(out.effect)[:3]
    top = int(np.argmax(out.effect))
    assert up[0][0] == tiny.readable([top])[0]
    np.testing.assert_allclose(out.by_source.sum(0), out.effect)
    assert out.by_source.shape == (len(cache.ids), out.effect.shape[0])
