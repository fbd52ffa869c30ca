"""Generation from Python (issue 43): `av.generate` continues a prompt with the bundled language
model exactly as Hugging Face's own greedy `generate` does (the oracle), gives every new token's
attention rows, draws the chosen head, and names the range of a layer, head or count outside it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.topics.scene import SceneInputError

pytestmark = pytest.mark.slow
PROMPT = "The capital of France is"


def test_greedy_generation_is_hugging_faces_and_its_rows_are_drawn():
    from attnviz.topics.language_model.bundled import bundled_llm

    made = av.generate(PROMPT, new_tokens=4, layer=2, head=5)
    lm = bundled_llm()
    ids = lm.tokenizer(PROMPT, add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        expected = lm.model.generate(ids, max_new_tokens=4, do_sample=False)[0, ids.shape[1] :]
    assert made.text == lm.tokenizer.decode(expected)
    assert made.rows.shape == (30, 9, 4, ids.shape[1] + 4)
    causal = made.rows.sum(-1)  # each new token's row over the prompt and earlier outputs
    assert np.allclose(causal, 1.0, atol=1e-4)
    drawn = np.asarray(made.figure.data[0].z, dtype=float)
    assert np.allclose(np.nan_to_num(drawn), made.rows[2, 5], atol=1e-4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"layer": 30}, "layer 30 is out of range: there are 30"),
        ({"head": 9}, "head 9 is out of range: there are 9"),
        ({"new_tokens": 21}, r"new_tokens 21 is out of range \(1 to 20\)"),
    ],
)
def test_out_of_range_names_the_range(kwargs, message):
    with pytest.raises(SceneInputError, match=message):
        av.generate(PROMPT, **kwargs)
