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


def test_generation_stops_at_the_end_of_the_models_turn_unless_asked_not_to():
    """Issue 54 item 5: a chat turn ends at <|im_end|>, as Hugging Face's `generate` given the
    model's end ids ends it (the oracle); asked to go on, it writes all 20 tokens."""
    from attnviz.topics.language_model import readouts
    from attnviz.topics.language_model.bundled import bundled_llm
    from attnviz.topics.language_model.scene import SCENE
    from attnviz.topics.pretrained.generation import end_ids

    lm = bundled_llm()
    values = SCENE.values({"lm_text": "What is the capital of France? One word.", "lm_chat": True})
    ids = SCENE.run(SCENE.config(values)).fwd.ids
    made = readouts.generation(lm, ids, 20, readouts.Decoding())
    stops = sorted(end_ids(lm))
    assert lm.tokenizer.convert_tokens_to_ids("<|im_end|>") in stops
    with torch.no_grad():
        expected = lm.model.generate(
            torch.tensor([list(ids)]), max_new_tokens=20, do_sample=False, eos_token_id=stops
        )[0, len(ids) :].tolist()
    assert made.new_ids == expected and made.ended and made.n_new < 20
    assert made.tokens[-1] == "<|im_end|>" and "im_end" not in made.text
    assert made.rows.shape[2:] == (made.n_new, len(ids) + made.n_new)
    assert readouts.generation(lm, ids, 20, readouts.Decoding(), past_end=True).n_new == 20


def test_the_bundled_model_run_with_cache_gives_its_own_attention_and_draws_it():
    """The researcher's handle on the real model (issue 56): `av.language_model()` and
    `run_with_cache`, the pattern of layer 18 (its induction head, 6) being Hugging Face's own
    weights for the same ids, drawn by the head view with the prompt's tokens."""
    from attnviz.topics.language_model.bundled import bundled_llm

    lm = av.language_model()
    assert (lm.n_layers, lm.n_heads, lm.n_kv_heads, lm.d_head) == (30, 9, 3, 64)
    logits, cache = lm.run_with_cache(PROMPT)
    ids = torch.tensor([list(cache.ids)])
    with torch.no_grad():
        ref = bundled_llm().model(ids, output_attentions=True)
    np.testing.assert_allclose(cache["pattern", 18], ref.attentions[18][0], atol=1e-5)
    np.testing.assert_allclose(logits[-1], ref.logits[0, -1], atol=1e-4)
    assert cache["q", 18].shape == (len(cache.ids), 9, 64)
    view = av.head_view(cache["pattern", 18], cache.tokens, heads=[6])
    assert view.data["tokens"] == cache.tokens == lm.to_str_tokens(PROMPT)


REPEATED = (
    "piano orbit lemon cactus violet engine marble tiger "
    "piano orbit lemon cactus violet engine marble tiger"
)


def test_the_induction_head_finds_piano_but_a_last_layer_head_writes_it():
    """The README's claim on `head_logits` (issue 57, item 2): at the last ' tiger' the model
    predicts ' piano'; L18 H6 puts 0.89 of its weight on the earlier ' piano', yet its direct
    effect lowers that logit (−0.26), and L29 H1 raises it most of all 270 heads (+1.20)."""
    lm = av.language_model()
    logits, cache = lm.run_with_cache(REPEATED)
    last, (piano,) = len(cache.ids) - 1, lm.to_tokens(" piano")
    assert int(np.argmax(logits[last])) == piano
    assert cache.tokens[9] == "␣piano" and round(float(cache["pattern", 18][6, last, 9]), 2) == 0.89
    assert round(float(lm.head_logits(cache, 18, 6, last).effect[piano]), 2) == -0.26
    assert round(float(lm.head_logits(cache, 29, 1, last).effect[piano]), 2) == 1.2
    # every head's direct push on ' piano', written out here: its output at the last position
    # through the final norm's scale over this run's rms, dotted with ' piano''s unembedding
    model = lm.wrapped.model
    final = cache["resid_post", lm.n_layers - 1][last].astype(np.float64)
    rms = np.sqrt(np.mean(final**2) + model.model.norm.variance_epsilon)
    read = model.model.norm.weight.detach().numpy() * model.lm_head.weight[piano].detach().numpy()
    raised = {
        (layer, head): float(lm.head_output(cache, layer, head, last).parts.sum(0) @ read / rms)
        for layer in range(lm.n_layers)
        for head in range(lm.n_heads)
    }
    assert max(raised, key=raised.get) == (29, 1)


def test_the_induction_heads_key_is_built_by_the_previous_token_head():
    """The README's claim on `explain_score` (issue 57, item 1): at the last ' tiger', L18 H6's
    score on the earlier ' piano' comes mostly (0.91 of it) from what L16 H0, the model's
    strongest previous-token head, wrote into the key; compared with the first token, the score
    is higher by log(a_ij / a_i0) of the model's own weights."""
    lm = av.language_model()
    _, cache = lm.run_with_cache(REPEATED)
    last, row = len(cache.ids) - 1, cache["pattern", 18][6, -1].astype(np.float64)
    why = lm.explain_score(cache, 18, 6, last, 9)
    name, part = why.side(key=True)
    assert name == "L16 H0" and round(part / why.score, 2) == 0.91
    versus = lm.explain_score(cache, 18, 6, last, 9, versus=0)
    assert versus.score == pytest.approx(np.log(row[9] / row[0]), abs=1e-3)
