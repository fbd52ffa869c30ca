"""An encoder–decoder from Python (issue 43): `av.encoder_decoder` gives a BART's encoder,
decoder and cross-attention, equal to Hugging Face's own eager attention on the same ids (the
oracle: a second copy of the model set to eager, run here), for a model built the default way
(`sdpa`); the figures draw the chosen layer's head; a range or a non-encoder–decoder model is
refused by name."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.topics.scene import SceneInputError

SOURCE, TARGET = "the cat sat on the mat", "a cat was sitting"


@pytest.fixture(scope="module")
def bart():
    """(a tiny BART built the default way, the MiniLM tokenizer, HF's eager output on the ids)."""
    from transformers import AutoTokenizer, BartConfig, BartModel

    from attnviz.topics.pretrained.model import bundled_path

    tok = AutoTokenizer.from_pretrained(str(bundled_path()), local_files_only=True)
    cfg = BartConfig(
        vocab_size=tok.vocab_size,
        d_model=16,
        encoder_layers=2,
        decoder_layers=3,
        encoder_attention_heads=2,
        decoder_attention_heads=4,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
    )
    torch.manual_seed(0)
    model = BartModel(cfg).eval()
    reference = BartModel(copy.deepcopy(cfg)).eval()
    reference.load_state_dict(model.state_dict())
    reference.set_attn_implementation("eager")
    src = tok(SOURCE, return_tensors="pt")["input_ids"]
    tgt = tok(TARGET, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        out = reference(input_ids=src, decoder_input_ids=tgt, output_attentions=True)
    return model, tok, out


def test_the_three_kinds_equal_hugging_faces_eager_attention(bart):
    model, tok, out = bart
    ed = av.encoder_decoder(model, SOURCE, TARGET, tokenizer=tok, layer=1, head=1)
    assert model.config._attn_implementation != "eager"  # switched for the call only
    for mine, theirs in (
        (ed.encoder, out.encoder_attentions),
        (ed.decoder, out.decoder_attentions),
        (ed.cross, out.cross_attentions),
    ):
        assert mine.shape[0] == len(theirs)
        for layer, weights in enumerate(theirs):
            assert np.allclose(mine[layer], weights[0].numpy(), atol=1e-6)
    assert ed.cross.shape == (3, 4, len(ed.target), len(ed.source))
    drawn = np.asarray(ed.figures["cross"].data[0].z, dtype=float)
    assert np.allclose(drawn, out.cross_attentions[1][0, 1].numpy(), atol=1e-6)
    assert ed.figures["cross"].layout.title.text.startswith("Cross-attention")
    assert list(ed.figures["cross"].data[0].y)[0] == "[CLS]" and ed.target[-1] == "[SEP]"


def test_a_layer_the_encoder_lacks_and_an_encoder_only_model_are_refused_by_name(bart):
    model, tok, _ = bart
    with pytest.raises(SceneInputError, match=r"encoder layer 2 is out of range: there are 2"):
        av.encoder_decoder(model, SOURCE, TARGET, tokenizer=tok, layer=2, head=0)
    with pytest.raises(SceneInputError, match="not an encoder–decoder model"):
        av.encoder_decoder(model.get_encoder(), SOURCE, TARGET, tokenizer=tok)
    with pytest.raises(SceneInputError, match="encoder_decoder"):
        av.model_view(model, SOURCE, tokenizer=tok)
