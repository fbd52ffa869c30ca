""" "What flows" on the pretrained page (issue 57, item 3): each head's ‖W_O^h v_j^h‖, written out
here from each family's own modules (Hugging Face's MiniLM loaded apart from the app; a tiny
Llama with grouped-query heads; a tiny GPT-2 with its fused q|k|v and Conv1D output), and the
head map with the toggle on: α_ij ‖W_O v_j‖ over its row, from Hugging Face's own weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.topics.pretrained.model import load
from attnviz.topics.pretrained.scene import SCENE
from attnviz.topics.pretrained.sources import ENV
from attnviz.topics.scene import SceneInputError
from tests.engine.test_pretrained import load_reference
from tests.support.tiny_gpt2 import tiny_causal_lm
from tests.support.tiny_llama import tiny_llama

TEXT, LAYER, HEAD = "The cat sat on the mat because it was tired.", 3, 7


def moved_norms(v: torch.Tensor, w_o: torch.Tensor, heads: int, kv_heads: int) -> np.ndarray:
    """(H, T): ‖v_j^g W_O^hᵀ‖ with v (T, kv_heads·d) and a Linear's W_O (D, H·d), head h reading
    its group's value head g = h // (H / kv_heads), each head written out on its own."""
    d = w_o.shape[1] // heads
    out = []
    for h in range(heads):
        g = h // (heads // kv_heads)
        out.append((v[:, g * d : (g + 1) * d] @ w_o[:, h * d : (h + 1) * d].T).norm(dim=-1))
    return torch.stack(out).numpy()


def test_the_head_map_under_what_flows_is_the_weight_times_what_minilms_head_moves():
    tokenizer, model = load_reference()
    enc = tokenizer(TEXT, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc, output_attentions=True, output_hidden_states=True)
        layer = model.encoder.layer[LAYER]
        v = layer.attention.self.value(out.hidden_states[LAYER])[0]  # (T, D)
        heads = model.config.num_attention_heads
        norms = moved_norms(v, layer.attention.output.dense.weight, heads, heads)[HEAD]  # (T,)
    alpha = out.attentions[LAYER][0, HEAD].numpy()  # (T, T)
    expected = alpha * norms[None, :] / (alpha * norms[None, :]).sum(-1, keepdims=True)
    values = SCENE.values({"pe_text": TEXT, "pe_layer": LAYER, "pe_head": HEAD, "pe_flow": True})
    result = SCENE.run(SCENE.config(values))
    drawn = SCENE.views(result, values, {"pe_head_map"})["pe_head_map"]
    np.testing.assert_allclose(np.asarray(drawn.data[0].z, dtype=float), expected, atol=1e-5)
    assert "what flows" in drawn.layout.title.text
    off = SCENE.views(result, values | {"pe_flow": False}, {"pe_head_map"})["pe_head_map"]
    np.testing.assert_allclose(np.asarray(off.data[0].z, dtype=float), alpha, atol=1e-6)
    python = av.head_view(text=TEXT, layer=LAYER, head=HEAD, value_weighted=True).figure
    np.testing.assert_allclose(np.asarray(python.data[0].z, dtype=float), expected, atol=1e-5)
    with pytest.raises(SceneInputError, match="value_weighted needs the model's values"):
        av.model_view(alpha[None, None], [f"t{i}" for i in range(len(alpha))], value_weighted=True)


def test_a_grouped_query_llama_reads_its_groups_value_head():
    lm = tiny_llama()
    got = lm.extract("the cat sat on the mat")
    heads, kv_heads = lm.n_heads, lm.n_kv_heads
    assert kv_heads < heads  # the groups are what is checked
    enc = lm.tokenizer("the cat sat on the mat", return_tensors="pt")
    with torch.no_grad():
        hidden = lm.model(**enc, output_hidden_states=True).hidden_states
        for index, layer in enumerate(lm.model.model.layers):
            attn = layer.self_attn
            v = attn.v_proj(layer.input_layernorm(hidden[index]))[0]  # (T, kv_heads·d)
            expected = moved_norms(v, attn.o_proj.weight, heads, kv_heads)
            np.testing.assert_allclose(got.value_norms[index], expected, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    folder = tiny_causal_lm(tmp_path_factory.mktemp("flows") / "gpt2")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV, str(folder.parent))
        yield load(str(folder))


def test_gpt2s_fused_values_and_conv1d_output_give_the_same_norms(gpt2):
    got = gpt2.extract("the cat sat on the mat")
    enc = gpt2.tokenizer("the cat sat on the mat", return_tensors="pt")
    with torch.no_grad():
        hidden = gpt2.model(**enc, output_hidden_states=True).hidden_states
        for index, block in enumerate(gpt2.model.transformer.h):
            v = block.attn.c_attn(block.ln_1(hidden[index]))[0].chunk(3, dim=-1)[2]  # (T, D)
            w_o = block.attn.c_proj.weight.T  # Conv1D keeps (in, out): as a Linear's (out, in)
            expected = moved_norms(v, w_o, gpt2.n_heads, gpt2.n_heads)
            np.testing.assert_allclose(got.value_norms[index], expected, rtol=1e-5, atol=1e-6)
