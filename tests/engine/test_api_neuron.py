"""av.neuron_view (BertViz's neuron view) against all-MiniLM-L6-v2 loaded here with Hugging Face
apart from the app's wrapper: the q ∘ k products are the model's own query times each key, their
row sums over √d_head the scores, and the softmax figure the model's attention row; weights alone
(no queries or keys) and a query outside the sentence are refused with what to do."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.topics.scene import SceneInputError
from tests.engine.test_pretrained import load_reference, reference_run

TEXT, LAYER, HEAD, QUERY = "The cat sat on the mat.", 2, 5, 3


@pytest.fixture(scope="module")
def drawn_and_reference():
    torch.set_num_threads(1)
    view = av.neuron_view(text=TEXT, layer=LAYER, head=HEAD, query=QUERY)
    return view, reference_run(load_reference(), TEXT)


def test_the_three_figures_are_the_models_own_numbers(drawn_and_reference):
    view, (attentions, queries, keys) = drawn_and_reference
    q, k = queries[LAYER, HEAD, QUERY], keys[LAYER, HEAD]  # (d,), (T, d)
    products = np.asarray(view.products.data[0].z, dtype=float)  # (T, d)
    np.testing.assert_allclose(products, q[None, :] * k, atol=1e-5)
    scores = np.asarray(view.scores.data[0].y, dtype=float)  # (T,)
    np.testing.assert_allclose(scores, (k @ q) / np.sqrt(q.shape[0]), atol=1e-4)
    row = np.asarray(view.softmax.data[0].y, dtype=float)
    np.testing.assert_allclose(row, attentions[LAYER, HEAD, QUERY], atol=1e-5)
    assert view.title == "Neuron view: layer 2, head 5, query 'sat'"
    page = view.html()
    assert page.count("<h1>") == 1 and "q ∘ k for query" in page


def test_weights_alone_and_a_query_past_the_sentence_are_refused():
    weights, tokens = np.full((2, 3, 4, 4), 0.25), ["a", "b", "c", "d"]
    with pytest.raises(SceneInputError, match="needs the model's queries and keys"):
        av.neuron_view(weights, tokens)
    with pytest.raises(SceneInputError, match="query token 9 is out of range"):
        av.neuron_view(text=TEXT, query=9)
