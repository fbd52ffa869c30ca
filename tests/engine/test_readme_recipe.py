"""The README's BertViz recipe runs as written (issue 56): its code block, with the model's name
pointed at the bundled MiniLM's folder (nothing is downloaded), loads the model, runs it and
saves the head view. A model built the default way (`sdpa`) hands back no weights, and the head
and model views then say what happened and what to do instead of drawing something else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

import attnviz as av
from attnviz.topics.pretrained.model import bundled_path
from attnviz.topics.scene import SceneInputError

README = Path(__file__).resolve().parents[2] / "README.md"
LEAD = "Your own model's attention, the way BertViz and TransformerLens users hold it"


def recipe() -> str:
    """The first Python block after the recipe's lead sentence, as the README writes it."""
    text = README.read_text("utf-8")
    after = text[text.index(LEAD) :]
    return re.search(r"```python\n(.*?)```", after, re.S).group(1)


def test_the_readmes_recipe_runs_as_written_and_saves_the_head_view(tmp_path, monkeypatch):
    code = recipe()
    name = re.search(r'^name = "([^"]+)"', code, re.M)
    assert name is not None, 'the recipe names its model on a line `name = "..."`'
    code = code.replace(name.group(0), f"name = {str(bundled_path())!r}")
    monkeypatch.chdir(tmp_path)
    space: dict = {}
    exec(compile(code, "README.md", "exec"), space)  # noqa: S102 - the README's own code
    saved = (tmp_path / "head_view.html").read_text("utf-8")
    assert "Head view, layer 2" in saved
    for token in space["tokens"]:  # the sentence's own tokens, as the tokenizer cut them
        assert f'"{token}"' in saved
    assert len(space["out"].attentions) == 6  # MiniLM's layers: eager attention gave weights
    neuron = (tmp_path / "neuron_view.html").read_text("utf-8")
    assert "Neuron view: layer 2, head 5, query &#x27;sat&#x27;" in neuron  # the title, escaped
    assert neuron.count('class="plotly-graph-div"') == 3  # q ∘ k, the scores, the softmax


@pytest.mark.parametrize("view", [av.head_view, av.model_view])
def test_a_model_built_the_default_way_gets_told_to_load_it_with_eager_attention(view):
    from transformers import AutoModel, AutoTokenizer

    folder = str(bundled_path())
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModel.from_pretrained(folder, local_files_only=True)  # sdpa, as it comes
    inputs = tokenizer("The cat sat on the mat.", return_tensors="pt")
    with torch.no_grad():
        out = model(**inputs, output_attentions=True)
    tokens = tokenizer.convert_ids_to_tokens(inputs["input_ids"][0])
    for returned in (out.attentions, None):
        with pytest.raises(SceneInputError) as raised:
            view(returned, tokens)
        assert "the model returned no attention weights" in str(raised.value)
        assert 'attn_implementation="eager"' in str(raised.value)
