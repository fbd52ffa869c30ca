"""Ranges that follow the model and the text (issue 43): `av.scene("pretrained", pe_model=...)`
takes any layer, head and query token the model read and the sentence have, and refuses one
outside them by naming the range, where the table's highs (the bundled MiniLM's 6 layers,
12 heads, the default sentence's 16 tokens) used to refuse or quietly clamp. The expected counts
come from the tiny model's own config and Hugging Face's output on the sentence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.topics.pretrained.sources import ENV
from attnviz.topics.scene import SceneInputError

LONG = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen " * 2


def tiny_gpt2(folder: Path, layers: int, heads: int) -> Path:
    """A randomly initialised GPT-2 with `layers` and `heads` (width 16) and a byte-level BPE
    tokenizer, saved locally (no network)."""
    from transformers import GPT2Config, GPT2Model, GPT2TokenizerFast

    from attnviz.core.tokenizers import bpe_tokenizer

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=400, n_positions=512, n_layer=layers, n_head=heads, n_embd=16)
    GPT2Model(config).save_pretrained(folder, safe_serialization=True)
    GPT2TokenizerFast(tokenizer_object=bpe_tokenizer(300)).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def eight_layers(tmp_path_factory) -> Path:
    return tiny_gpt2(tmp_path_factory.mktemp("eight") / "gpt2", layers=8, heads=2)


@pytest.fixture(autouse=True)
def folders_allowed(monkeypatch, tmp_path_factory):
    monkeypatch.setenv(ENV, str(tmp_path_factory.getbasetemp()))


def hf_attention(folder: Path, text: str) -> np.ndarray:
    """Hugging Face's own eager attention of the folder's model on `text`: (L, H, T, T)."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        out = model(**tok(text, return_tensors="pt"), output_attentions=True)
    return torch.stack(out.attentions)[:, 0].numpy()


def test_an_eight_layer_folder_takes_layer_7_and_the_long_texts_last_token(eight_layers):
    expected = hf_attention(eight_layers, LONG)  # (8, 2, T, T)
    last = expected.shape[2] - 1
    assert expected.shape[0] == 8 and last > 15
    view = av.scene(
        "pretrained", pe_model=str(eight_layers), pe_text=LONG, pe_layer=7, pe_head=1, pe_query=last
    )
    figure = view.views({"pe_head_map"})["pe_head_map"]
    drawn = np.asarray(figure.data[0].z, dtype=float)  # the chosen head's (T, T) map
    assert np.allclose(np.nan_to_num(drawn), expected[7, 1], atol=1e-5)
    assert view.answers()["attention_row"].weights == pytest.approx(expected[7, 1, last], abs=1e-5)


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"pe_layer": 8}, r"layer 8 is out of range: there are 8 \(layer 0 to 7\)"),
        ({"pe_head": 2}, r"head 2 is out of range: there are 2 \(head 0 to 1\)"),
        ({"pe_query": 600}, r"query token 600 is out of range: there are \d+ \(query token 0 to"),
    ],
)
def test_a_setting_outside_the_folders_model_is_refused_by_name(eight_layers, setting, message):
    view = av.scene("pretrained", pe_model=str(eight_layers), pe_text=LONG, **setting)
    with pytest.raises(SceneInputError, match=message):
        view.views()


def test_the_text_pages_head_and_query_follow_its_heads_and_tokens():
    with pytest.raises(SceneInputError, match=r"head 5 is out of range: there are 4 \(head 0"):
        av.scene("text", ta_heads=4, ta_head=5).views()
    with pytest.raises(SceneInputError, match=r"query token 40 is out of range: there are 3 "):
        av.scene("text", ta_text="the cat sat", ta_tok="word", ta_query=40).views()
