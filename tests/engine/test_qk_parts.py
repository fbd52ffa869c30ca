"""Why a head looks where it looks (issue 57, item 1): a cell's score taken apart by what built its
query and its key (attnviz.topics.language_model.qk_parts), on the tiny random Llama. The oracles
are the model's own: its hidden states (the components sum to the stream into the layer), its
attention weights (a row's scores differ as the logarithms of Hugging Face's weights do, so the
parts' sums are the model's scores up to the softmax's shift), and a part recomputed here from one
component at the query and one at the key through Hugging Face's own norm scale, projections and
rotary functions."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
import torch
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

import attnviz as av
from attnviz.topics.language_model.qk_parts import REST, components, score_parts
from attnviz.topics.scene import SceneInputError
from tests.support.tiny_llama import HEAD_DIM, HEADS, KV_HEADS, LAYERS, tiny_llama

PROMPT = "the cat sat on the mat because the cat was tired"


@pytest.fixture(scope="module")
def tiny():
    return tiny_llama()


@pytest.fixture(scope="module")
def ref(tiny):
    ids = av.language_model(tiny).to_tokens(PROMPT)
    with torch.no_grad():
        out = tiny.model(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    return ids, out


def test_the_components_sum_to_the_stream_into_the_layer(tiny, ref):
    ids, out = ref
    for layer in range(LAYERS):
        comps = components(tiny, ids, layer)
        assert len(comps.names) == 1 + layer * (HEADS + 1)
        np.testing.assert_allclose(comps.vectors.sum(0), out.hidden_states[layer][0], atol=1e-5)
        np.testing.assert_allclose(comps.stream, out.hidden_states[layer][0], atol=1e-6)


def test_every_rows_scores_differ_as_the_logarithms_of_the_models_weights(tiny, ref):
    """s_ij − s_i0 = log a_ij − log a_i0 for every cell of every head: the parts' sums are the
    model's pre-softmax scores (the softmax forgets only a shift per row)."""
    ids, out = ref
    for layer in range(LAYERS):
        comps = components(tiny, ids, layer)
        for head in range(HEADS):
            weights = out.attentions[layer][0, head].double().numpy()  # (T, T)
            for i in range(1, len(ids)):
                scores = [score_parts(tiny, comps, layer, head, (i, j)).score for j in range(i + 1)]
                want = np.log(weights[i, : i + 1]) - np.log(weights[i, 0])
                np.testing.assert_allclose(np.subtract(scores, scores[0]), want, atol=1e-4)


@torch.no_grad()
def one_part(tiny, ids, out, layer, head, pair, vectors):
    """q·k/√d with only component vectors `pair` (one at the query, one at the key) in the stream,
    each position's RMSNorm division kept at the full run's, through Hugging Face's modules."""
    block, (i, j) = tiny.model.model.layers[layer], pair
    stream = out.hidden_states[layer][0].double()  # (T, D)
    rms = torch.sqrt(stream.pow(2).mean(-1) + block.input_layernorm.variance_epsilon)  # (T,)
    scale = block.input_layernorm.weight.double()
    q_w, k_w = block.self_attn.q_proj.weight.double(), block.self_attn.k_proj.weight.double()
    q = (torch.from_numpy(vectors[0]) * scale / rms[i]) @ q_w.T  # (H·d,)
    k = (torch.from_numpy(vectors[1]) * scale / rms[j]) @ k_w.T  # (G·d,)
    group = head // (HEADS // KV_HEADS)
    q = q.view(HEADS, HEAD_DIM)[head][None, None, None]  # (1, 1, 1, d)
    k = k.view(KV_HEADS, HEAD_DIM)[group][None, None, None]
    rotary = tiny.model.model.rotary_emb
    cos_i, sin_i = rotary(q.float(), torch.tensor([[i]]))
    cos_j, sin_j = rotary(k.float(), torch.tensor([[j]]))
    q, _ = apply_rotary_pos_emb(q, q, cos_i.double(), sin_i.double())
    k, _ = apply_rotary_pos_emb(k, k, cos_j.double(), sin_j.double())
    return float((q * k).sum()) / HEAD_DIM**0.5


def test_a_part_is_the_score_with_only_its_two_components_in_the_stream(tiny, ref):
    """Component vectors made here: the embedding from the embedding table, a head's output from
    the hooked cache's z through its slice of o_proj, an MLP's from the cache."""
    ids, out = ref
    _, cache = av.language_model(tiny).run_with_cache(PROMPT)
    o_proj = tiny.model.model.layers[0].self_attn.o_proj.weight.detach().double().numpy()
    z = cache["z", 0]  # (T, H, d)
    with torch.no_grad():
        embedded = tiny.model.model.embed_tokens(torch.tensor(ids)).double().numpy()  # (T, D)
    head_1 = z[:, 1].astype(np.float64) @ o_proj[:, HEAD_DIM : 2 * HEAD_DIM].T  # (T, D)
    mlp = cache["mlp_out", 0].astype(np.float64)
    comps = components(tiny, ids, 1)
    found = score_parts(tiny, comps, 1, 2, (7, 4))
    for (a, b), vectors in {
        ("embedding", "L0 H1"): (embedded[7], head_1[4]),
        ("L0 MLP", "embedding"): (mlp[7], embedded[4]),
        ("L0 H1", "L0 MLP"): (head_1[7], mlp[4]),
    }.items():
        want = one_part(tiny, ids, out, 1, 2, (7, 4), vectors)
        got = found.parts[found.query_names.index(a), found.key_names.index(b)]
        assert got == pytest.approx(want, rel=1e-4, abs=1e-6), (a, b)


def test_why_one_key_and_not_another_is_the_difference_of_their_scores(tiny, ref):
    ids, out = ref
    comps = components(tiny, ids, 1)
    weights = out.attentions[1][0, 3].double().numpy()
    diff = score_parts(tiny, comps, 1, 3, (9, 5), other_key=2)
    assert diff.score == pytest.approx(np.log(weights[9, 5] / weights[9, 2]), abs=1e-4)
    assert diff.parts.sum() == pytest.approx(diff.score)


def test_the_largest_parts_keep_the_total_and_name_the_rest(tiny, ref):
    ids, _ = ref
    found = score_parts(tiny, components(tiny, ids, 1), 1, 0, (8, 3))
    top = found.top(3)
    assert top.parts.shape == (3, 3) and top.query_names[-1] == top.key_names[-1] == REST
    assert top.parts.sum() == pytest.approx(found.score)
    row_sums = found.parts.sum(1)
    kept = [found.query_names.index(n) for n in top.query_names[:-1]]
    assert sorted(np.abs(row_sums[kept])) == sorted(np.sort(np.abs(row_sums))[-2:])
    a, b, part = found.largest()
    assert part == pytest.approx((found.parts * np.sign(found.score)).max() * np.sign(found.score))
    assert found.parts[found.query_names.index(a), found.key_names.index(b)] == part


def test_the_python_call_gives_the_same_parts_and_refuses_what_the_mask_hides(tiny):
    """`lm.explain_score` keeps only the positions it needs: the same parts as every position
    kept; a key after the query, or a head the model lacks, is a message."""
    lm = av.language_model(tiny)
    _, cache = lm.run_with_cache(PROMPT)
    found = lm.explain_score(cache, 1, 2, 7, 4, versus=1)
    every = score_parts(tiny, components(tiny, list(cache.ids), 1), 1, 2, (7, 4), other_key=1)
    np.testing.assert_allclose(found.parts, every.parts, atol=1e-12)
    with pytest.raises(SceneInputError, match="causal mask"):
        lm.explain_score(cache, 1, 2, 3, 5)
    with pytest.raises(SceneInputError, match="head"):
        lm.explain_score(cache, 1, HEADS, 3, 1)


def test_a_part_of_the_model_run_by_another_thread_does_not_shift_the_layers_read(tiny, ref):
    """The interventions page runs the model from a layer on by swapping its list of layers
    while it holds the model's lock (layout.from_layer); a reader that builds its hooks before it
    takes the lock must still read the whole model's layers. (On a server whose warm-up swept
    the interventions page, the language-model page took L18 H6's score of +7.95 apart as
    −4.39: its hooks sat on the wrong layers.)"""
    from attnviz.topics.language_model.layout import from_layer

    ids, out = ref
    swapped, leave, found = threading.Event(), threading.Event(), {}

    def hold() -> None:
        with tiny.lock, from_layer(tiny, 1):
            swapped.set()
            leave.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    swapped.wait(10)
    reader = threading.Thread(target=lambda: found.update(comps=components(tiny, ids, 1)))
    reader.start()
    time.sleep(0.3)  # it builds its hooks, then waits for the lock
    leave.set()
    holder.join()
    reader.join()
    np.testing.assert_allclose(found["comps"].stream, out.hidden_states[1][0], atol=1e-6)
    np.testing.assert_allclose(found["comps"].vectors.sum(0), out.hidden_states[1][0], atol=1e-5)


def test_the_sentence_reads_a_small_weight_and_a_cancelled_score_as_people_would():
    """A weight under 0.01 keeps two significant digits (0.0038, never 0.00); a side's part over
    twice a small score is said to exceed it (never "1284% of it")."""
    from attnviz.topics.language_model.qk_parts import ScoreParts
    from attnviz.topics.language_model.why import Why, said

    parts = np.array([[-4.0, 3.5], [0.1, 0.07]])  # (2, 2): sums to -0.33
    score = float(parts.sum())
    why = Why(2, 1, None, ScoreParts(parts, ["emb", "L1 H0"], ["emb", "L2 MLP"], score, ""), 0.0038)
    text = said(why, ["a", "b", "c"], 3, 1)
    assert "with weight 0.0038: its score is -0.33." in text
    assert "(-3.90, more than the score: other parts cancel it)" in text  # the key's emb column
    assert "on the query's side emb (-0.50, 152% of it)" in text  # under twice: a share
