"""Model sources on the pretrained page's engine (issue 10): a GPT-2-style folder (fused c_attn)
loads and its queries and keys rebuild its attention; paths and Hub names are validated before
any file access and fail with the whole message; rollout with hidden specials is the paper's
rollout on the full maps, cut for display. The folders here lie in pytest's temporary folder,
made an allowed root (ATTNVIZ_MODEL_DIRS) for each test; tests/engine/test_model_folders.py
checks the roots themselves."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from attnviz.topics.pretrained.analysis import drop_tokens, rollout, visible_part
from attnviz.topics.pretrained.model import load
from attnviz.topics.pretrained.sources import ENV, locate
from tests.engine.test_pretrained import paper_rollout


def tiny_gpt2(folder: Path) -> Path:
    """A randomly initialised GPT-2 (2 layers, 2 heads, width 16) and a byte-level BPE
    tokenizer, saved with save_pretrained (safetensors): a local folder, no network."""
    from transformers import GPT2Config, GPT2Model, GPT2TokenizerFast

    from attnviz.core.tokenizers import bpe_tokenizer

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=400, n_positions=64, n_layer=2, n_head=2, n_embd=16)
    GPT2Model(config).save_pretrained(folder, safe_serialization=True)
    GPT2TokenizerFast(tokenizer_object=bpe_tokenizer(300)).save_pretrained(folder)
    return folder


@pytest.fixture(autouse=True)
def temporary_folders_allowed(monkeypatch, tmp_path_factory):
    """pytest's temporary folder (where every folder of these tests is made) is a model root."""
    monkeypatch.setenv(ENV, str(tmp_path_factory.getbasetemp()))


@pytest.fixture(scope="module")
def gpt2_folder(tmp_path_factory) -> Path:
    return tiny_gpt2(tmp_path_factory.mktemp("tiny_gpt2"))


def test_gpt2_folder_with_fused_c_attn_loads_and_its_queries_rebuild_its_attention(gpt2_folder):
    """Repro: a GPT-2-style folder crashed the page with IndexError (no query/key modules)."""
    assert (gpt2_folder / "model.safetensors").exists()
    result = load(str(gpt2_folder)).extract("the cat saß on the mat")
    layers, heads, t, _ = result.attentions.shape
    assert (layers, heads) == (2, 2) and result.queries.shape == (2, 2, t, 8)
    assert result.tokens[:2] == ["the", "␣c"] and "ß‹1/2›" in result.tokens  # decoded pieces
    q, k = torch.from_numpy(result.queries), torch.from_numpy(result.keys)
    scores = q @ k.transpose(-2, -1) / math.sqrt(8)  # GPT-2: causal softmax(q·k/√d)
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    np.testing.assert_allclose(scores.softmax(-1).numpy(), result.attentions, atol=1e-5)


def test_long_input_is_cut_to_the_models_positions(gpt2_folder):
    result = load(str(gpt2_folder)).extract("word " * 200)
    assert len(result.tokens) == 64 and result.truncated


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("x" * 10_000, "the model box holds 10,000 characters"),
        ("{root}/" + "y" * 300 + "/model", "cannot read the folder `{root}/yyy"),
        ("{root}/no/such/folder", "there is no model folder at `{root}/no/such/folder`"),
        ("{root}", "the folder `{root}` has no config.json, so it is not a model"),
    ],
)
def test_bad_paths_are_refused_before_loading(typed, message, tmp_path):
    """Repro: a 10,000-character path raised `OSError: File name too long` as a traceback.
    Inside an allowed root (tmp_path lies in one) the message says what is wrong."""
    with pytest.raises(ValueError) as err:
        locate(typed.format(root=tmp_path))
    assert str(err.value).startswith(message.format(root=tmp_path))


def test_a_hub_name_not_in_the_cache_fails_with_the_whole_message(monkeypatch, tmp_path):
    """Repro: offline, a Hub name froze the page for 47.7 s, then a message cut mid-URL. Nothing
    is downloaded (local_files_only), so it fails at once (timed in benchmarks, not here)."""
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # an empty cache
    with pytest.raises(ValueError) as err:
        load("someone/no-such-model")
    text = str(err.value)
    assert text.startswith("`someone/no-such-model` is not in the local Hugging Face cache")
    assert "never downloads" in text
    assert text.endswith("and type that folder")  # whole: not cut at 200 characters


def test_rollout_with_hidden_specials_is_the_papers_rollout_cut_for_display():
    rng = np.random.default_rng(1)
    att = rng.random((3, 2, 6, 6))
    att[..., 0] += 3  # a [CLS]-like sink
    att /= att.sum(-1, keepdims=True)
    keep = np.array([False, True, True, True, True, False])
    shown = visible_part(rollout(att), keep)
    np.testing.assert_allclose(shown, paper_rollout(att)[1:5, 1:5], atol=1e-12)
    renormalised_first = rollout(drop_tokens(att, keep))  # what the page drew before
    assert np.abs(shown - renormalised_first).max() > 0.05
