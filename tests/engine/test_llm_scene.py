"""The language-model page's scene on a tiny random Llama handed in with `use_model` (no real
model load): settings to views, the sections only while open, the lesson answers, the chat
template and the BOS token, and the messages for bad input or a missing model."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from attnviz.figures.text import shown
from attnviz.topics.language_model import bundled, readouts, scene
from attnviz.topics.language_model.scene import SCENE
from attnviz.topics.scene import SceneInputError, token_labels
from tests.support.tiny_llama import tiny_llama

SECTIONS = ("lm_open_gen", "lm_open_lens", "lm_open_heads", "lm_open_sinks", "lm_open_why")


@pytest.fixture(scope="module")
def tiny():
    model = tiny_llama()
    scene.use_model(lambda device: model)
    yield model
    scene.use_model(bundled.bundled_llm)


def test_default_views_are_the_main_ones_and_sections_add_theirs(tiny):
    values = SCENE.values(lm_text="the cat sat on the mat", lm_layer=1, lm_head=3)
    out = SCENE.run(SCENE.config(values))
    assert set(SCENE.views(out, values)) == {"lm_next", "lm_gqa", "lm_head_map", "lm_kv"}
    opened = SCENE.values(values, **{key: True for key in SECTIONS})
    every = set(SCENE.views(out, opened))
    assert every - {"lm_next", "lm_gqa", "lm_head_map", "lm_kv"} == {
        name for names in SCENE.section_views.values() for name in names
    }
    assert (
        "Layer 1, head 3 (reads KV head 1)"
        in SCENE.views(out, values)["lm_head_map"].layout.title.text
    )


def test_layers_and_heads_beyond_the_model_are_cut_to_its_last(tiny):
    values = SCENE.values(lm_layer=29, lm_head=8)  # the bundled model's, not the tiny one's
    out = SCENE.run(SCENE.config(values))
    assert scene.pick(out, values) == scene.Pick(1, 3)


def test_answers_are_the_pages_own_numbers(tiny):
    values = SCENE.values(lm_text="the cat sat on the")
    out = SCENE.run(SCENE.config(values))
    answers = SCENE.answers(out, values)
    top = readouts.next_tokens(tiny, out.fwd, readouts.Decoding())
    found = answers["next_token"]
    assert found.answer == token_labels(top.labels[:1])[0] in found.options  # "␣the" is "the"
    assert len(found.options) == 4
    scores = readouts.probe_scores(tiny)["induction"]
    layer, head = divmod(int(scores.argmax()), scores.shape[1])
    assert answers["induction_head"].answer == f"L{layer} H{head}"
    share = float(readouts.heads.first_token_share(out.fwd.attentions).mean())
    assert answers["first_token_share"].answer == readouts.SHARES[min(int(share * 4), 3)]


def test_bos_and_chat_template_change_the_ids(tiny):
    plain = SCENE.run(SCENE.config(SCENE.values(lm_text="the cat")))
    with_bos = SCENE.run(SCENE.config(SCENE.values(lm_text="the cat", lm_bos=True)))
    assert with_bos.fwd.ids == (tiny.tokenizer.bos_token_id, *plain.fwd.ids)
    tiny.tokenizer.chat_template = "{% for m in messages %}<s>{{ m['content'] }}{% endfor %}"
    chat = SCENE.run(SCENE.config(SCENE.values(lm_text="the cat", lm_chat=True)))
    assert chat.fwd.ids == with_bos.fwd.ids  # '<s>' then the message, from the template


def test_empty_prompt_and_missing_model_are_messages(tiny):
    with pytest.raises(SceneInputError, match="empty"):
        SCENE.config(SCENE.values(lm_text="  \n "))

    def missing(device: str):
        raise bundled.ModelMissing(bundled.MISSING)

    scene.use_model(missing)
    try:
        with pytest.raises(SceneInputError, match="requirements-nodeps.txt"):
            SCENE.run(SCENE.config(SCENE.values()))
    finally:
        scene.use_model(lambda device: tiny)


def test_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(bundled.CACHE_ENV, str(tmp_path))
    assert bundled.cache_folder() == tmp_path / bundled.CACHE_VERSION
    assert not bundled.is_converted()


def test_what_flows_draws_the_value_weighted_share_of_the_hooked_model(tiny):
    """The head map's "what flows" toggle draws, for the chosen head, the norm-based shares that
    av.language_model's value_weighted gives on the same prompt (its oracle writes Kobayashi's
    formula out from the layer's weights: tests/engine/test_hooked_model.py)."""
    import attnviz as av

    values = SCENE.values({"lm_layer": 1, "lm_head": 2, "lm_flow": True})
    out = SCENE.run(SCENE.config(values))
    drawn = SCENE.views(out, values, {"lm_head_map"})["lm_head_map"]
    lm = av.language_model(tiny)
    _, cache = lm.run_with_cache(values["lm_text"])
    shares = lm.value_weighted(cache, 1)[2]  # (T, T)
    z = np.asarray(drawn.data[0].z, dtype=float)
    lower = np.tril(np.ones_like(shares, dtype=bool))  # the future is blank on the map
    np.testing.assert_allclose(z[lower], shares[lower], atol=1e-5)
    assert "what flows" in drawn.layout.title.text


def test_the_sinks_map_under_what_flows_is_each_heads_first_token_share_by_norm(tiny):
    """With "what flows" on, the sinks section's map is each head's mean share by norm on the
    first token over queries 1…T−1, from av.language_model's value_weighted maps."""
    import attnviz as av

    values = SCENE.values({"lm_flow": True, "lm_open_sinks": True})
    out = SCENE.run(SCENE.config(values))
    drawn = SCENE.views(out, values, {"lm_sinks_map"})["lm_sinks_map"]
    lm = av.language_model(tiny)
    _, cache = lm.run_with_cache(values["lm_text"])
    expected = [lm.value_weighted(cache, layer)[:, 1:, 0].mean(-1) for layer in range(2)]
    np.testing.assert_allclose(np.asarray(drawn.data[0].z, dtype=float), expected, atol=1e-5)
    assert "What flows from the first token" in drawn.layout.title.text


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (1, 2), (1, 3)])
def test_the_flow_answer_compares_what_flows_from_the_first_token_with_its_weight(
    tiny, layer, head
):
    """`flow_first_share` (with "what flows" on): the first token's mean share by norm over
    queries 1…T−1 against its mean weight, from av.language_model's cache, as a range; off, no
    such answer."""
    import attnviz as av

    values = SCENE.values({"lm_layer": layer, "lm_head": head, "lm_flow": True})
    out = SCENE.run(SCENE.config(values))
    found = SCENE.answers(out, values)["flow_first_share"]
    lm = av.language_model(tiny)
    _, cache = lm.run_with_cache(values["lm_text"])
    flow = lm.value_weighted(cache, layer)[head, 1:, 0].mean()
    weight = cache["pattern", layer][head, 1:, 0].mean()
    ratio = flow / weight
    expected = (
        "under half"
        if ratio < 0.5
        else "half to 9/10"
        if ratio < 0.9
        else "about equal"
        if ratio < 1.1
        else "more"
    )
    assert (found.answer, len(found.options)) == (expected, 4)
    off = SCENE.values({"lm_layer": layer, "lm_head": head, "lm_flow": False})
    assert "flow_first_share" not in SCENE.answers(out, off)


def test_what_the_head_writes_under_what_flows_is_its_direct_logit_effect(tiny):
    """With "what flows" on, the chosen head's bars are the tokens av.language_model's
    head_logits ranks highest and lowest at the last token (its oracle sums every writer's
    effect to the model's own logits: tests/engine/test_hooked_model.py); off, no bars."""
    import attnviz as av

    values = SCENE.values({"lm_layer": 1, "lm_head": 2, "lm_flow": True})
    out = SCENE.run(SCENE.config(values))
    drawn = SCENE.views(out, values, {"lm_writes"})["lm_writes"]
    lm = av.language_model(tiny)
    _, cache = lm.run_with_cache(values["lm_text"])
    want = lm.head_logits(cache, 1, 2, len(cache.ids) - 1)
    expected = want.promoted(5) + want.suppressed(5)[::-1]
    np.testing.assert_allclose(drawn.data[0].x, [v for _, v in expected], atol=1e-5)
    assert "Layer 1, head 2 at" in drawn.layout.title.text
    off = SCENE.values({"lm_layer": 1, "lm_head": 2, "lm_flow": False})
    assert "lm_writes" not in SCENE.views(out, off)


def test_why_takes_the_chosen_heads_cell_apart_into_parts_that_sum_to_its_score(tiny):
    """Left to the page, the cell is the last token's and the key the head weights most after
    the first (read here off Hugging Face's own weights); compared with the first token, the
    drawn parts sum to log(a_ij / a_i0), the two scores' difference; the sentence names a
    component the matrix shows."""
    text = "the cat sat on the mat because the cat was tired"
    values = SCENE.values(lm_text=text, lm_layer=1, lm_head=2, lm_open_why=True)
    out = SCENE.run(SCENE.config(values))
    with torch.no_grad():
        weights = tiny.model(torch.tensor([out.fwd.ids]), output_attentions=True).attentions
    row = weights[1][0, 2, -1].double().numpy()  # the last token's weights, layer 1 head 2
    i, j = len(row) - 1, 1 + int(np.argmax(row[1:]))
    figure = SCENE.views(out, values)["lm_why"]
    names = shown(out.fwd.tokens)
    title = re.sub(r"<[^>]+>", "", figure.layout.title.text.replace("<br>", " "))
    assert f"from {names[i]} to {names[j]}" in title
    versus = SCENE.values(values, lm_why_versus=0)
    drawn = np.asarray(SCENE.views(out, versus)["lm_why"].data[0].z, dtype=np.float64)
    assert drawn.sum() == pytest.approx(np.log(row[j] / row[0]), abs=1e-4)
    said = SCENE.ops.explain_cell(out, values)
    drawn_names = set(figure.data[0].x) | set(figure.data[0].y)
    assert any(name in said for name in drawn_names - {"the rest"}), said
