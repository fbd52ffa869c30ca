"""The pretrained wrapper against Hugging Face itself, and the analysis against NumPy references."""

from __future__ import annotations

import threading

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


def hf_attentions(model, text):
    enc = model.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        out = model.model(**enc, output_attentions=True)
    return torch.stack(out.attentions)[:, 0].numpy()


@pytest.mark.parametrize("text", SENTENCES)
def test_attentions_equal_hugging_face_output_attentions(minilm, text):
    result = minilm.attend(text)
    assert result.attentions.shape[:2] == (6, 12)
    np.testing.assert_array_equal(result.attentions, hf_attentions(minilm, text))


@pytest.mark.parametrize("text", SENTENCES)
def test_softmax_of_our_queries_and_keys_rebuilds_the_attention(minilm, text):
    r = minilm.attend(text)
    scores = r.queries @ r.keys.transpose(0, 1, 3, 2) / np.sqrt(r.queries.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    np.testing.assert_allclose(weights, r.attentions, atol=1e-5)


def test_long_input_is_truncated_and_says_so(minilm):
    r = minilm.attend("word " * 700)
    assert len(r.tokens) == 512 and r.truncated and r.n_input_tokens > 512


def test_two_threads_at_once_get_correct_results(minilm):
    expected = {t: minilm.attend(t).attentions for t in SENTENCES[:2]}
    got, errors = {}, []

    def work(text):
        try:
            for _ in range(3):
                got[text] = minilm.attend(text).attentions
                np.testing.assert_array_equal(got[text], expected[text])
        except AssertionError as err:
            errors.append(err)

    threads = [threading.Thread(target=work, args=(t,)) for t in SENTENCES[:2]]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors and set(got) == set(SENTENCES[:2])


def test_missing_model_path_is_a_clear_error():
    with pytest.raises(ValueError, match="no model folder"):
        load("/definitely/not/here")


def test_rollout_matches_a_numpy_reference():
    rng = np.random.default_rng(0)
    att = rng.random((3, 2, 4, 4))
    att /= att.sum(-1, keepdims=True)
    ref = np.eye(4)
    for layer in att:  # Abnar & Zuidema: 0.5·mean_heads + 0.5·I, renormalised, multiplied in order
        a = 0.5 * layer.mean(0) + 0.5 * np.eye(4)
        ref = (a / a.sum(-1, keepdims=True)) @ ref
    np.testing.assert_allclose(rollout(att), ref)
    np.testing.assert_allclose(rollout(att).sum(-1), 1)


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
