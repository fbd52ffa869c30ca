"""The language-model page's "Try this" claims (attnviz.topics.language_model.params.TRY_THIS),
performed on the bundled SmolLM2-135M with the page's own presets through its scene, and the real
model's maps against transformers' own eager attention. The model is loaded once per test worker
(the first load on a machine converts the GGUF file and caches it)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attnviz.topics.language_model import forward, heads, readouts
from attnviz.topics.language_model.bundled import bundled_llm
from attnviz.topics.language_model.params import FACT, NAMES
from attnviz.topics.language_model.scene import SCENE

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lm():
    return bundled_llm()


def preset_run(name: str):
    values = SCENE.values(SCENE.table.preset(name))
    return SCENE.run(SCENE.config(values)), values


def next_token(out, lm) -> tuple[str, float]:
    top = readouts.next_tokens(lm, out.fwd, readouts.Decoding())
    return top.labels[0], float(top.probs[0])


@pytest.mark.try_this("language-model", 1)
def test_a_fact_paris(lm):
    label, p = next_token(preset_run("A fact")[0], lm)
    assert label == "␣Paris"
    assert p == pytest.approx(0.77, abs=0.005)


@pytest.mark.try_this("language-model", 2)
def test_names_mary(lm):
    out, _ = preset_run("Names (IOI)")
    label, p = next_token(out, lm)
    assert label == "␣Mary"
    assert p == pytest.approx(0.92, abs=0.005)
    assert "␣John" not in readouts.next_tokens(lm, out.fwd, readouts.Decoding()).labels[:2]


@pytest.mark.try_this("language-model", 3)
def test_repeated_sequence_induction_head(lm):
    out, values = preset_run("A repeated sequence")
    scores = readouts.probe_scores(lm)["induction"]
    best = np.unravel_index(np.nanargmax(scores), scores.shape)
    assert (int(best[0]), int(best[1])) == (values["lm_layer"], values["lm_head"]) == (18, 6)
    ids, row = np.array(out.fwd.ids), out.fwd.attentions[18, 6]
    start = out.fwd.tokens.index("␣orbit", 3)  # the second copy's '␣orbit'
    for i in range(start, len(ids)):  # the token after the first copy of token i
        target = [j + 1 for j in range(i) if ids[j] == ids[i]]
        assert target, out.fwd.tokens[i]
        assert row[i, target[0]] > 0.85, (out.fwd.tokens[i], row[i, target[0]])


@pytest.mark.try_this("language-model", 4)
def test_sinks_on_the_default_prompt(lm):
    shares = {}
    for bos in (False, True):
        ids, _ = forward.encode(lm, FACT, bos)
        per_layer = heads.first_token_share(forward.run(lm, ids).attentions).mean(1)
        shares[bos] = int((per_layer > 0.5).sum())
    assert shares == {False: 27, True: 25}


@pytest.mark.try_this("language-model", 5)
def test_lens_mary_only_after_the_last_layer(lm):
    ids, _ = forward.encode(lm, NAMES)
    view = readouts.lens_view(lm, forward.run(lm, ids))
    last = [row[-1] for row in view.top]  # the last position's top token after each layer
    assert last[-1] == "␣Mary"
    assert set(last[:-1]) <= {"␣the", "␣"}, last  # a no-break space shows as a space too


def test_real_maps_equal_transformers_eager_attention(lm):
    ids, _ = forward.encode(lm, NAMES)
    with torch.no_grad():
        ref = lm.model(torch.tensor([ids]), output_attentions=True)
    np.testing.assert_allclose(
        forward.run(lm, ids).attentions, torch.stack(ref.attentions)[:, 0].numpy(), atol=1e-6
    )
    assert lm.n_layers == 30 and lm.n_heads == 9 and lm.n_kv_heads == 3


RAW_TEXT = ("▁", "Ġ", "&quot;", "&#x27;", "\\xa0", "\xa0")  # a tokenizer's or an escaper's marks


def strings(tree) -> list[str]:
    """Every string in a figure's JSON (titles, tick labels, cell and bar texts, hovers)."""
    if isinstance(tree, str):
        return [tree]
    if isinstance(tree, dict):
        return [s for value in tree.values() for s in strings(value)]
    if isinstance(tree, list):
        return [s for value in tree for s in strings(value)]
    return []


def test_model_text_is_shown_as_people_read_it(lm):
    """Issue 54 item 5: a prompt with quotes, an apostrophe and a no-break space: no view writes
    SentencePiece's or the byte alphabet's space, an HTML entity or an escape; ␣ marks spaces."""
    values = SCENE.values({"lm_text": 'She said "don\'t go"\xa0to Paris, "and'})
    out = SCENE.run(SCENE.config(values))
    found = {
        name: [s for s in strings(fig.to_plotly_json()) if any(m in s for m in RAW_TEXT)]
        for name, fig in SCENE.views(out, values).items()
        if fig is not None
    }
    assert {name: texts for name, texts in found.items() if texts} == {}
    lens = strings(SCENE.views(out, values, {"lm_lens"})["lm_lens"].to_plotly_json())
    assert '␣"' in lens and "␣Paris" in lens  # the quote after a space, not &quot;


@pytest.mark.try_this("language-model", 6)
def test_what_flows_shrinks_a_sink_heads_first_token(lm):
    out, values = preset_run("Names (IOI)")
    shown = []
    for flow in (False, True):  # the head map as the page draws it, the toggle off then on
        picked = values | {"lm_layer": 23, "lm_head": 1, "lm_flow": flow}
        drawn = SCENE.views(out, picked, {"lm_head_map"})["lm_head_map"]
        z = np.asarray(drawn.data[0].z, dtype=float)  # (T, T), the future blank
        shown.append(float(z[1:, 0].mean()))  # queries 1…T−1 on the first token
    assert shown == [pytest.approx(0.72, abs=0.005), pytest.approx(0.28, abs=0.005)]
    answer = SCENE.answers(out, values | {"lm_layer": 23, "lm_head": 1, "lm_flow": True})
    assert answer["flow_first_share"].answer == "under half"  # lesson 9


def test_nearly_every_head_moves_less_from_the_first_token_than_it_weighs_it(lm):
    """Lesson 9's "Every head, by what flows", on the page's default prompt: the sinks map by
    weight against the same map by what flows, both as the page draws them."""
    out, values = preset_run("A fact")
    maps = [
        np.asarray(
            SCENE.views(out, values | {"lm_open_sinks": True, "lm_flow": flow}, {"lm_sinks_map"})[
                "lm_sinks_map"
            ]
            .data[0]
            .z,
            dtype=float,
        )
        for flow in (False, True)
    ]  # (L, H) each
    assert (maps[1] < maps[0]).mean() > 0.9, (maps[1] < maps[0]).sum()


@pytest.mark.try_this("language-model", 7)
def test_the_induction_head_moves_piano_but_does_not_push_it(lm):
    out, values = preset_run("A repeated sequence")
    picked = values | {"lm_flow": True}
    figs = SCENE.views(out, picked, {"lm_head_map", "lm_writes", "lm_next"})
    z = np.asarray(figs["lm_head_map"].data[0].z, dtype=float)  # (T, T): what flows, per row
    keys = list(figs["lm_head_map"].data[0].x)
    assert keys[int(np.nanargmax(z[-1]))] == "␣piano"  # the last row's largest share
    assert list(figs["lm_next"].data[0].x)[0] == "␣piano"  # the model's next token
    bars = figs["lm_writes"].data[0]
    pushed_up = [token for token, push in zip(bars.y, bars.x, strict=True) if push > 0]
    assert len(pushed_up) == 5 and "␣piano" not in pushed_up


@pytest.mark.try_this("language-model", 8)
def test_the_induction_heads_key_side_is_the_previous_token_head(lm):
    out, values = preset_run("A repeated sequence")
    picked = values | {"lm_open_why": True}
    figure = SCENE.views(out, picked, {"lm_why"})["lm_why"]
    title = figure.layout.title.text.replace("<br>", " ")
    assert "from ␣tiger" in title and "to ␣piano" in title
    z = np.asarray(figure.data[0].z, dtype=float)  # (rows, columns): the parts drawn
    columns = list(figure.data[0].x)
    share = z.sum(0)[columns.index("L16 H0")] / z.sum()  # the key's side, over the score
    assert round(share, 1) == 0.9
    previous = readouts.probe_scores(lm)["previous"]  # (L, H): every head's score
    assert np.unravel_index(np.argmax(previous), previous.shape) == (16, 0)
    assert "L16 H0" in SCENE.ops.explain_cell(out, picked)
    # lesson 12, "What the induction head moves": by what flows, the stripe holds at least as
    # much as by weight (the words it looks at carry long vectors)
    stripe = [(i, i - 7) for i in range(10, len(out.fwd.tokens))]  # the second copy's rows
    maps = [
        np.asarray(
            SCENE.views(out, values | {"lm_flow": on}, {"lm_head_map"})["lm_head_map"].data[0].z,
            dtype=float,
        )
        for on in (False, True)
    ]  # (T, T) each: weight, then what flows
    weight, flow = ([m[i, j] for i, j in stripe] for m in maps)
    assert np.mean(flow) >= np.mean(weight) > 0.8
