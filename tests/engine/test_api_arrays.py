"""The notebook API on what researchers hold (issue 43): the tuple a Hugging Face model returns
with output_attentions, an (L, H, T, T) or (H, T, T) array, per-layer patterns; a model built the
default way (`sdpa`: no weights) drawn with eager attention for the call; ranges that follow the
model and refuse out-of-range values by naming them; an encoder–decoder's message; and the
docstrings' examples run. The oracle is Hugging Face's own eager attention on a tiny BERT built
here from the bundled MiniLM's tokenizer."""

from __future__ import annotations

import copy
import doctest
import sys

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.api.inputs import attended_from, attention_array
from attnviz.topics.scene import SceneInputError

TEXT = "the cat sat on the mat"


@pytest.fixture(scope="module")
def tiny():
    """(model built the default way, its tokenizer, HF's eager attentions on TEXT, tokens)."""
    from transformers import AutoTokenizer, BertConfig, BertModel

    from attnviz.topics.pretrained.model import bundled_path

    tok = AutoTokenizer.from_pretrained(str(bundled_path()), local_files_only=True)
    cfg = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=64,
    )
    torch.manual_seed(0)
    model = BertModel(cfg).eval()  # transformers 5: sdpa, which returns no weights
    assert model.config._attn_implementation != "eager"
    reference = BertModel(copy.deepcopy(cfg)).eval()  # its own config: not the model's
    reference.load_state_dict(model.state_dict())
    reference.set_attn_implementation("eager")  # Hugging Face's own weights: the oracle
    enc = tok(TEXT, return_tensors="pt")
    with torch.no_grad():
        out = reference(**enc, output_attentions=True)
    tokens = tok.convert_ids_to_tokens(enc["input_ids"][0])
    return model, tok, out.attentions, tokens


def test_a_default_sdpa_model_is_drawn_with_its_eager_weights(tiny):
    model, tok, attentions, tokens = tiny
    for layer in range(3):  # every head of every layer, line by line
        view = av.head_view(model, TEXT, tokenizer=tok, layer=layer)
        for lines in view.data["heads"]:
            expected = attentions[layer][0, lines["head"]].numpy()
            got = np.zeros_like(expected)
            got[lines["q"], lines["k"]] = lines["w"]
            assert np.allclose(got, np.where(expected >= 0.01, expected, 0), atol=5e-4)
    tiled = np.asarray(av.model_view(model, TEXT, tokenizer=tok).data[0].z, dtype=float)
    assert np.isfinite(tiled).sum() == sum(a[0].numel() for a in attentions)  # 3 × 4 maps
    assert model.config._attn_implementation != "eager", "the model's own setting is back"


def test_the_tuple_from_output_attentions_draws_the_same_head_view(tiny):
    model, tok, attentions, tokens = tiny
    view = av.head_view(attentions, tokens, layer=2, head=1)
    (lines,) = view.data["heads"]
    expected = attentions[2][0, 1].numpy()
    for q, k, w in zip(lines["q"], lines["k"], lines["w"], strict=True):
        assert w == pytest.approx(expected[q, k], abs=5e-4)
    assert len(lines["w"]) == int((expected >= 0.01).sum())
    assert view.title == "Head view, layer 2"


def test_arrays_of_every_shape_researchers_hold_give_one_layer_stack(tiny):
    _, _, attentions, tokens = tiny
    stacked = torch.cat(attentions).numpy()  # (L, H, T, T)
    assert np.array_equal(attention_array(list(attentions)), stacked)
    assert np.array_equal(attention_array(stacked), stacked)
    assert np.array_equal(attention_array(torch.stack(attentions)), stacked)  # (L, 1, H, T, T)
    assert attention_array(stacked[1]).shape == (1, 4, len(tokens), len(tokens))
    patterns = [a.requires_grad_(False) for a in attentions]  # TransformerLens: (1, H, T, T)
    assert attended_from(patterns, tokens).attentions.shape == stacked.shape


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda a, t: av.head_view(a, t, layer=3), "layer 3 is out of range: there are 3"),
        (lambda a, t: av.head_view(a, t, layer=-1), "layer -1 is out of range"),
        (lambda a, t: av.head_view(a, t, head=4), "head 4 is out of range: there are 4"),
        (lambda a, t: av.head_view(a, t[:-1]), "tokens for attention over"),
        (lambda a, t: av.head_view(tuple(x.repeat(2, 1, 1, 1) for x in a), t), "a batch of 2"),
        (lambda a, t: av.head_view(a, " ".join(t)), "pass their tokens"),
        (lambda a, t: av.model_view(np.ones((2, 3, 4)), t), "expected (layers, heads, T, T)"),
    ],
)
def test_wrong_input_names_what_is_wrong(tiny, call, message):
    _, _, attentions, tokens = tiny
    with pytest.raises(SceneInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(attentions, tokens)


@pytest.mark.slow
def test_the_bundled_model_refuses_layer_6_instead_of_drawing_layer_5():
    with pytest.raises(SceneInputError, match="layer 6 is out of range: there are 6"):
        av.head_view(text="The cat sat.", layer=6)


def test_an_encoder_decoder_gets_a_message_that_says_what_to_pass(tiny):
    from transformers import BartConfig, BartModel

    _, tok, _, _ = tiny
    cfg = BartConfig(
        vocab_size=tok.vocab_size,
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
    )
    with pytest.raises(SceneInputError, match="get_encoder"):
        av.model_view(BartModel(cfg), TEXT, tokenizer=tok)


def test_the_head_view_docstrings_examples_run():
    for function in (av.head_view, av.model_view):
        finder = doctest.DocTestFinder(recurse=False)
        (test,) = finder.find(function, globs={**vars(sys.modules[function.__module__])})
        result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
        assert result.failed == 0 and result.attempted >= 2, function.__name__


def test_layers_and_heads_picked_draw_those_blocks_named_by_their_own_numbers():
    rng = np.random.default_rng(3)
    weights = rng.random((6, 4, 3, 3))
    weights /= weights.sum(-1, keepdims=True)  # (L, H, T, T), rows of 1
    fig = av.model_view(weights, ["a", "b", "c"], layers=[5, 2], heads=[3, 1])
    z = np.asarray(fig.data[0].z, dtype=float)  # blocks of 3 × 3 with one blank line between
    for row, layer in enumerate([5, 2]):
        for col, head in enumerate([3, 1]):
            block = z[row * 4 : row * 4 + 3, col * 4 : col * 4 + 3]
            assert np.allclose(block, weights[layer, head], atol=1e-6), (layer, head)
    assert fig.layout.yaxis.ticktext == ("layer 5", "layer 2")
    assert fig.layout.xaxis.ticktext == ("3", "1")
    assert fig.data[0].y[0] == "layer 5 · query a" and fig.data[0].x[4] == "head 1 · key a"


@pytest.mark.parametrize(
    ("picks", "message"),
    [
        ({"layers": [6]}, r"layer 6 is out of range: there are 6 \(layer 0 to 5\)"),
        ({"heads": [0, 4]}, r"head 4 is out of range: there are 4 \(head 0 to 3\)"),
        ({"heads": []}, "pick each head once"),
        ({"layers": [1, 1]}, "pick each layer once"),
    ],
)
def test_a_selection_outside_the_model_is_refused_by_name(picks, message):
    weights = np.full((6, 4, 3, 3), 1 / 3)
    with pytest.raises(SceneInputError, match=message):
        av.model_view(weights, ["a", "b", "c"], **picks)


def test_the_head_view_draws_only_the_heads_picked(tiny):
    _, _, attentions, tokens = tiny
    view = av.head_view(attentions, tokens, layer=2, heads=[3, 0])
    assert [lines["head"] for lines in view.data["heads"]] == [0, 3]
    for lines in view.data["heads"]:
        expected = attentions[2][0, lines["head"]].numpy()
        got = np.zeros_like(expected)
        got[lines["q"], lines["k"]] = lines["w"]
        assert np.allclose(got, np.where(expected >= 0.01, expected, 0), atol=5e-4)
