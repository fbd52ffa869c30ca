"""The language-model page's engine (attnviz.topics.language_model) against oracles written here, on
a tiny random Llama with grouped-query attention built in the test (tests/support/tiny_llama.py):
the maps, the residual stream, the logit lens, generation, the next token, and the head scores."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attnviz.figures import llm as figures
from attnviz.topics.language_model import forward, heads, lens, readouts
from attnviz.topics.language_model.decoding import Decoding
from tests.support.tiny_llama import HEAD_DIM, HEADS, KV_HEADS, LAYERS, tiny_llama

PROMPT = "the cat sat on the mat and the dog sat on the log"


@pytest.fixture(scope="module")
def lm():
    return tiny_llama()


@pytest.fixture(scope="module")
def ids(lm):
    return forward.encode(lm, PROMPT, bos=True)[0]


def rms_norm(x: torch.Tensor, norm) -> torch.Tensor:
    """x / sqrt(mean(x²) + ε) · w, written out."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon) * norm.weight


def rotate(x: torch.Tensor, theta: float) -> torch.Tensor:
    """Rotary positions on (..., T, d), written out: pairs (i, i + d/2) turned by pos·θ^(−2i/d)."""
    t, d = x.shape[-2], x.shape[-1]
    freq = theta ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)  # (d/2,)
    angle = torch.arange(t, dtype=torch.float32)[:, None] * freq[None]  # (T, d/2)
    cos, sin = angle.cos().repeat(1, 2), angle.sin().repeat(1, 2)
    first, second = x[..., : d // 2], x[..., d // 2 :]
    return x * cos + torch.cat([-second, first], -1) * sin


def first_layer_maps(lm, ids: list[int]) -> np.ndarray:
    """(H, T, T) layer 0's weights from its weights: RMSNorm, q/k projections, RoPE, each query
    head h reading key/value head h // (H / G), causal softmax of q·k / √d."""
    model, layer = lm.model.model, lm.model.model.layers[0]
    x = rms_norm(model.embed_tokens.weight[ids], layer.input_layernorm)  # (T, D)
    t = len(ids)
    q = (x @ layer.self_attn.q_proj.weight.T).view(t, HEADS, HEAD_DIM).transpose(0, 1)
    k = (x @ layer.self_attn.k_proj.weight.T).view(t, KV_HEADS, HEAD_DIM).transpose(0, 1)
    theta = lm.model.config.rope_parameters["rope_theta"]
    q, k = rotate(q, theta), rotate(k, theta)  # (H, T, d), (G, T, d)
    maps = []
    for h in range(HEADS):
        scores = q[h] @ k[h // (HEADS // KV_HEADS)].T / math.sqrt(HEAD_DIM)  # (T, T)
        scores = scores.masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), 1), -math.inf)
        maps.append(torch.softmax(scores, -1))
    return torch.stack(maps).detach().numpy()


def test_layer_zero_maps_equal_grouped_query_attention_written_out(lm, ids):
    """Each query head reads its group's key head: heads 0, 1 read key head 0; 2, 3 read 1."""
    got = forward.run(lm, ids).attentions[0]  # (H, T, T)
    np.testing.assert_allclose(got, first_layer_maps(lm, ids), atol=2e-5)
    assert [forward.group_of(lm, h) for h in range(HEADS)] == [0, 0, 1, 1]
    assert not np.allclose(got[0], got[2], atol=0.05), "the tiny model's heads differ"


def test_every_layers_maps_and_residual_stream_equal_transformers_reference(lm, ids):
    fwd = forward.run(lm, ids)
    with torch.no_grad():
        ref = lm.model(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    np.testing.assert_allclose(fwd.attentions, torch.stack(ref.attentions)[:, 0].numpy(), atol=1e-6)
    np.testing.assert_allclose(
        fwd.resid[0], lm.model.model.embed_tokens.weight[ids].detach().numpy(), atol=1e-6
    )
    for layer in range(1, LAYERS):  # the reference's last entry is after the final norm
        np.testing.assert_allclose(fwd.resid[layer], ref.hidden_states[layer][0].numpy(), atol=1e-5)
    np.testing.assert_allclose(fwd.last_logits, ref.logits[0, -1].numpy(), atol=1e-5)
    assert np.all(np.triu(fwd.attentions, 1) == 0), "no weight on a later token"


def test_keys_are_one_per_key_value_head(lm, ids):
    fwd = forward.run(lm, ids)
    layer = lm.model.model.layers[1]
    x = rms_norm(torch.from_numpy(fwd.resid[1]), layer.input_layernorm)
    k = (x @ layer.self_attn.k_proj.weight.T).view(len(ids), KV_HEADS, HEAD_DIM).transpose(0, 1)
    assert fwd.keys.shape == (LAYERS, KV_HEADS, len(ids), HEAD_DIM)
    np.testing.assert_allclose(fwd.keys[1], k.detach().numpy(), atol=1e-5)


def test_logit_lens_is_the_final_norm_and_unembedding_of_each_layer_written_out(lm, ids):
    fwd = forward.run(lm, ids)
    got = lens.logit_lens(lm, fwd)
    for layer in range(LAYERS):
        h = torch.from_numpy(fwd.resid[layer + 1])
        probs = torch.softmax(rms_norm(h, lm.model.model.norm) @ lm.model.lm_head.weight.T, -1)
        want_p, want_i = probs.topk(lens.TOP, -1)
        np.testing.assert_array_equal(got.ids[layer], want_i.numpy())
        np.testing.assert_allclose(got.probs[layer], want_p.detach().numpy(), atol=1e-5)
    final = torch.softmax(torch.from_numpy(fwd.last_logits), -1)
    assert got.probs[-1, -1, 0] == pytest.approx(float(final.max()), abs=1e-5)


def test_generation_rows_equal_a_full_forward_over_the_final_sequence(lm, ids):
    n_new = 6
    gen = readouts.generation(lm, tuple(ids), n_new, Decoding())
    full = forward.run(lm, [*ids, *gen.new_ids])
    p = len(ids)
    for step in range(n_new):
        seen = p + step + 1
        np.testing.assert_allclose(
            gen.rows[:, :, step, :seen], full.attentions[:, :, p + step, :seen], atol=2e-5
        )
        assert np.all(gen.rows[:, :, step, seen:] == 0)
    assert gen.cache_lengths == [p + k for k in range(1, n_new + 1)]
    with torch.no_grad():  # greedy: each new token is the argmax after the tokens before it
        logits = lm.model(torch.tensor([[*ids, *gen.new_ids]])).logits[0]
    assert gen.new_ids == logits[p - 1 : p + n_new - 1].argmax(-1).tolist()


def test_greedy_is_the_argmax_and_sampling_stays_in_its_cut(lm, ids):
    fwd = forward.run(lm, ids)
    with torch.no_grad():
        logits = lm.model(torch.tensor([ids])).logits[0, -1]
    order = logits.argsort(descending=True).tolist()
    top = readouts.next_tokens(lm, fwd, Decoding())
    assert top.chosen == lm.readable([order[0]])[0] and top.chosen_index == 0
    assert top.labels == lm.readable(order[:10])
    probs = torch.softmax(logits, -1)
    np.testing.assert_allclose(top.probs, probs[order[:10]].numpy(), atol=1e-6)
    for seed in range(8):  # top-k 3: always one of the three most likely
        picked = readouts.next_tokens(lm, fwd, Decoding(1.0, 3, 1.0, seed)).chosen
        assert picked in lm.readable(order[:3])
    again = [readouts.next_tokens(lm, fwd, Decoding(1.5, 0, 0.9, 7)).chosen for _ in range(2)]
    assert again[0] == again[1], "the same seed draws the same token"


def test_duplicate_and_local_scores_equal_loops():
    rng = np.random.default_rng(1)
    w = rng.random((2, 2, 3, 7, 7))
    w = np.tril(w)
    w /= w.sum(-1, keepdims=True)  # (L, B, H, T, T) causal rows
    ids = np.array([[5, 6, 5, 7, 6, 5, 8], [1, 2, 3, 1, 2, 3, 1]])
    got = heads.duplicate_and_local(w, ids)
    for layer in range(2):
        for h in range(3):
            dup, local = [], []
            for b in range(2):
                for i in range(1, 7):
                    same = [j for j in range(i) if ids[b, j] == ids[b, i]]
                    if same:
                        dup.append(sum(w[layer, b, h, i, j] for j in same))
                    near = range(max(0, i - heads.LOCAL), i)
                    local.append(sum(w[layer, b, h, i, j] for j in near))
            assert got["duplicate"][layer, h] == pytest.approx(np.mean(dup))
            assert got["local"][layer, h] == pytest.approx(np.mean(local))


def test_first_token_share_is_the_mean_over_later_queries(lm, ids):
    att = forward.run(lm, ids).attentions
    got = heads.first_token_share(att)
    for layer in range(LAYERS):
        for h in range(HEADS):
            want = sum(att[layer, h, i, 0] for i in range(1, len(ids))) / (len(ids) - 1)
            assert got[layer, h] == pytest.approx(want, abs=1e-6)


def test_sinks_compare_the_prompt_with_and_without_bos(lm, ids):
    view = readouts.sinks(lm, tuple(ids))
    plain = forward.encode(lm, PROMPT, bos=False)[0]
    assert ids[0] == lm.tokenizer.bos_token_id and ids[1:] == plain
    bare = forward.run(lm, plain).attentions
    np.testing.assert_allclose(view.without_bos, bare[..., 1:, 0].mean(-1), atol=1e-6)
    np.testing.assert_allclose(view.as_given, view.with_bos)  # this prompt starts with BOS
    assert view.first_token == "<s>" and view.first == lm.readable(plain[:1])[0]


def test_kv_cache_bytes_per_token_from_the_config(lm):
    cfg = lm.model.config
    rows = dict(readouts.kv_bytes_rows(lm))
    per_head = 2 * cfg.num_hidden_layers * cfg.head_dim * 4  # K and V, float32
    assert list(rows.values()) == [per_head * KV_HEADS, per_head * HEADS, per_head]


SPLIT = 'naïve café: ß 日本 "q"\n'  # characters of 2 and 3 bytes, some cut between pieces


def id_and_bytes(exact: str) -> tuple[int, bytes]:
    """'id 7042 · bytes 20 50' -> (7042, b' P')."""
    ident, _, rest = exact.partition(" · bytes ")
    return int(ident.removeprefix("id ")), bytes.fromhex(rest)


def test_each_tokens_id_and_bytes_rebuild_the_prompt_exactly(lm):
    """Issue 54: the hover keeps what a readable label hides. The pieces' bytes, joined, are the
    prompt's UTF-8 (the oracle is the prompt itself), also where a character is cut."""
    ids = lm.tokenizer(SPLIT, add_special_tokens=False)["input_ids"]
    parts = [id_and_bytes(text) for text in lm.exact(ids)]
    assert [i for i, _ in parts] == ids
    assert b"".join(b for _, b in parts) == SPLIT.encode("utf-8")
    cut = [b for _, b in parts if not is_utf8(b)]
    assert cut, "no character was cut between pieces: the prompt no longer tests that case"
    bos = lm.tokenizer.bos_token_id
    assert lm.exact([bos]) == [f"id {bos} · special &lt;s&gt;"]


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_the_next_token_and_lens_hovers_name_each_tokens_id(lm, ids):
    """The next token's bars and the lens' cells: each token's id in its hover is the one the
    model's own logits rank there (transformers' forward, top-k here)."""
    fwd = forward.run(lm, ids)
    logits = lm.model(torch.tensor([ids])).logits[0, -1].detach()
    top = readouts.next_tokens(lm, fwd, Decoding())
    bars = figures.next_token_figure(top.labels, top.probs, top.chosen_index, top.exact)
    hovered = [id_and_bytes(text)[0] for text in bars.data[0].customdata]
    assert hovered == logits.topk(len(hovered)).indices.tolist()
    cell = readouts.lens_view(lm, fwd).hover[-1][-1]  # the last layer at the last position
    named = [int(line.rsplit("(id ", 1)[1].split(" ")[0]) for line in cell.split("<br>")]
    assert named == logits.topk(lens.TOP).indices.tolist()
