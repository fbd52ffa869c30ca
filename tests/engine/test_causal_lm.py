"""Causal language models on the pretrained page's engine (issue 29, item 5), on a tiny random
GPT-2 saved to a temporary folder (tests/support/tiny_gpt2.py, no network): it loads as a causal
LM, its maps are causal (upper triangle exactly 0, drawn blank), rollout matches the formula
written out here, the query/key view reproduces a causal row, and generation with the KV cache
gathers the same rows as one full forward pass over the final sequence."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnviz.topics.pretrained.analysis import blank_future, query_row, rollout
from attnviz.topics.pretrained.generation import MAX_NEW, generate, step_rows
from attnviz.topics.pretrained.model import is_causal, load
from attnviz.topics.pretrained.sources import ENV
from tests.support.tiny_gpt2 import tiny_causal_lm

PROMPT = "the cat sat on the mat and"


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    folder = tiny_causal_lm(tmp_path_factory.mktemp("causal_lm") / "gpt2")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV, str(folder.parent))
        yield load(str(folder))


def written_out_rollout(att: np.ndarray) -> np.ndarray:
    """Abnar & Zuidema's rollout, element by element: Â_l[i, j] = (½ mean_h A_l[h, i, j] +
    ½ [i = j]) / row sum; R_0 = I; R_l[i, j] = Σ_k Â_l[i, k] R_{l−1}[k, j]."""
    layers, heads, t, _ = att.shape
    result = [[float(i == j) for j in range(t)] for i in range(t)]
    for lay in range(layers):
        mixed = [
            [
                0.5 * sum(att[lay, h, i, j] for h in range(heads)) / heads + 0.5 * (i == j)
                for j in range(t)
            ]
            for i in range(t)
        ]
        mixed = [[v / sum(row) for v in row] for row in mixed]
        result = [
            [sum(mixed[i][k] * result[k][j] for k in range(t)) for j in range(t)] for i in range(t)
        ]
    return np.array(result)


def test_configs_decide_causal_or_encoder():
    from transformers import BertConfig, GPT2Config, T5Config

    assert is_causal(GPT2Config()) and not is_causal(BertConfig())
    assert not is_causal(T5Config())  # encoder-decoder
    assert is_causal(BertConfig(architectures=["BertLMHeadModel"]))  # named a causal LM


def test_gpt2_folder_loads_as_causal_lm_with_a_causal_mask(lm):
    assert lm.causal and type(lm.model).__name__ == "GPT2LMHeadModel"
    got = lm.extract(PROMPT)
    t = len(got.tokens)
    assert got.causal and got.attentions.shape == (2, 2, t, t)
    upper = np.triu(np.ones((t, t), dtype=bool), 1)
    assert (got.attentions[..., upper] == 0).all()  # exactly 0, not small
    assert (got.attentions[..., ~upper] > 0).all()
    np.testing.assert_allclose(got.attentions.sum(-1), 1, atol=1e-5)
    drawn = blank_future(got.attentions)
    assert np.isnan(drawn[..., upper]).all() and not np.isnan(drawn[..., ~upper]).any()
    # tokens readable: no byte alphabet, spaces as ␣, and so in a text without any space
    assert got.tokens[1].startswith("␣") and not any("Ġ" in tok for tok in got.tokens)
    assert "".join(lm.extract("naïve").tokens).replace("‹1/2›", "").startswith("na")
    assert not any("Ã" in tok for tok in lm.extract("naïve").tokens)
    control = lm.tokenizer.convert_tokens_to_ids("ā")  # byte 0x01 in GPT-2's byte alphabet
    assert lm.readable([control]) == ["\\x01"]  # an escape, not an invisible character


def test_causal_rollout_matches_the_written_out_formula(lm):
    att = lm.extract(PROMPT).attentions.astype(np.float64)
    rolled = rollout(att)
    np.testing.assert_allclose(rolled, written_out_rollout(att), atol=1e-12)
    np.testing.assert_allclose(rolled.sum(-1), 1, atol=1e-12)
    assert np.allclose(np.triu(rolled, 1), 0)  # still causal
    np.testing.assert_allclose(rolled[0], np.eye(len(rolled))[0])  # the first sees only itself


def test_query_key_view_reproduces_a_causal_row(lm):
    got = lm.extract(PROMPT)
    i = 3
    q, k = got.queries[1, 0, i], got.keys[1, 0]
    _, weights = query_row(q, k, sees_up_to=i)
    np.testing.assert_allclose(weights, got.attentions[1, 0, i], atol=1e-5)
    assert (weights[i + 1 :] == 0).all()


def test_cached_generation_rows_equal_one_full_forward_pass(lm):
    n = 6
    gen = generate(lm, PROMPT, n)
    p = gen.n_prompt
    assert gen.n_new == n and gen.rows.shape == (2, 2, n, p + n)
    assert gen.cache_lengths == [p + k for k in range(1, n + 1)]
    ids = torch.tensor([lm.tokenizer(PROMPT)["input_ids"] + gen.new_ids])
    with torch.no_grad():
        full = lm.model(input_ids=ids, output_attentions=True, use_cache=False)
    oracle = torch.stack(full.attentions)[:, 0, :, -n:].numpy()  # (L, H, N, P + N)
    np.testing.assert_allclose(gen.rows, oracle, atol=1e-5)
    greedy = full.logits[0, p - 1 : p + n - 1].argmax(-1).tolist()  # each step's argmax
    assert gen.new_ids == greedy
    assert gen.tokens[:p] == lm.extract(PROMPT).tokens  # the same readable labels
    np.testing.assert_allclose(step_rows(gen, 1, None), oracle[1].mean(0), atol=1e-5)


def test_sampling_is_seeded_and_bad_requests_are_refused(lm):
    first = generate(lm, PROMPT, 5, temperature=1.5, seed=3)
    assert first.new_ids == generate(lm, PROMPT, 5, temperature=1.5, seed=3).new_ids
    for bad in (0, MAX_NEW + 1):
        with pytest.raises(ValueError, match="1 to 32"):
            generate(lm, PROMPT, bad)
    with pytest.raises(ValueError, match="no tokens"):
        generate(lm, "", 3)
    lm.causal = False
    try:
        with pytest.raises(ValueError, match="causal language model"):
            generate(lm, PROMPT, 3)
    finally:
        lm.causal = True
