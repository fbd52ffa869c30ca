"""Issue 56 item 3: a researcher's own causal LM folder on the language-model and interventions
pages (their scenes, as the pages run them) and in `av.language_model(folder)`, on tiny random
models of each family built here (tests/support/tiny_families.py). The oracle is the folder
loaded again by transformers itself: its own attention weights and logits."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import attnviz as av
from attnviz.topics.language_model import own
from attnviz.topics.language_model.decoding import Decoding
from attnviz.topics.language_model.scene import model_for
from attnviz.topics.pretrained.sources import ENV, OUTSIDE
from attnviz.topics.registry import scene
from attnviz.topics.scene import SceneInputError
from tests.support.tiny_families import tiny_family

READ = ("llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3_text", "phi3", "gpt2")
SPLIT = {"llama", "mistral", "qwen2", "phi3"}  # the others' scores do not split (qk_parts.refusal)
DIRECT = SPLIT | {"qwen3", "gpt2"}  # a head's direct part of the logits reads (direct_problem)
SECTIONS = ("lm_open_gen", "lm_open_lens", "lm_open_heads", "lm_open_sinks", "lm_open_why")
PROMPT = "the man and the woman went to the store and the man gave"
CLEAN, CORRUPT = "the man and the woman went to the", "the woman and the man went to the"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """{family: its folder}, inside a folder listed in ATTNVIZ_MODEL_DIRS for the module ("phi4":
    a Phi-3 that turns only part of each head, as Phi-4-mini does)."""
    root = tmp_path_factory.mktemp("own")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV, str(root))
        found = {family: str(tiny_family(family, root / family)) for family in READ}
        found["phi4"] = str(tiny_family("phi3", root / "phi4", partial_rotary_factor=0.75))
        yield found


def reference(folder: str, text: str):
    """transformers' own run of the folder: (its attentions (L, H, T, T), last logits (V,))."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    ids = tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        out = model(input_ids=ids, output_attentions=True)
    return torch.stack(out.attentions)[:, 0].numpy(), out.logits[0, -1].numpy(), tokenizer


@pytest.mark.parametrize("family", READ)
def test_a_folder_of_each_family_opens_on_the_language_model_page(folders, family):
    page = scene("language-model")
    values = page.values({"lm_text": PROMPT, "lm_model": folders[family]})
    values = page.values(values, **{key: True for key in SECTIONS}, lm_layer=1, lm_head=3)
    out = page.run(page.config(values))
    weights, logits, _ = reference(folders[family], PROMPT)
    np.testing.assert_allclose(out.fwd.attentions, weights, atol=1e-5)
    np.testing.assert_allclose(out.fwd.last_logits, logits, rtol=1e-4, atol=1e-4)
    views = page.views(out, values)
    assert {
        "lm_next",
        "lm_gqa",
        "lm_head_map",
        "lm_gen_step_bars",
        "lm_lens",
        "lm_sinks_map",
    } <= set(views)
    assert ("lm_why" in views) == (family in SPLIT), sorted(views)
    said = page.ops.explain_cell(out, values)
    flows = page.views(out, page.values(values, lm_flow=True))  # what flows, read by source
    assert ("lm_writes" in flows) == (family in DIRECT), sorted(flows)
    if family not in SPLIT:
        assert said.startswith("This model's scores do not split into parts: it"), said
    kv_head = 3 if family == "gpt2" else 1  # GPT-2: a key/value head per query head
    assert f"Layer 1, head 3 (reads KV head {kv_head})" in views["lm_head_map"].layout.title.text
    kv_bytes_are_said_for_its_kind(model_for(out.config), folders[family])


def kv_bytes_are_said_for_its_kind(lm, folder: str) -> None:
    """The cache's bytes a token from the folder's config (float32 keys and values), said as
    multi-head where each query head has its own key/value head (GPT-2), not as "N instead
    of N (1× less)"."""
    config = json.loads((Path(folder) / "config.json").read_text())
    heads = config.get("num_attention_heads", config.get("n_head"))
    kv_heads = config.get("num_key_value_heads", heads)
    layers = config.get("num_hidden_layers", config.get("n_layer"))
    width = config.get("hidden_size", config.get("n_embd"))
    own_bytes = 2 * layers * config.get("head_dim", width // heads) * 4 * kv_heads
    said = scene("language-model").ops.say_kv_bytes(lm)
    assert f"{own_bytes:,} bytes a token" in said, said
    assert ("instead of" in said) == (kv_heads < heads), said
    assert said.startswith("Multi-head" if kv_heads == heads else "Grouped-query"), said


@pytest.mark.parametrize("family", ["qwen2", "gemma3_text", "phi3", "gpt2"])
def test_a_folder_opens_on_the_interventions_page_with_its_own_logit_difference(folders, family):
    page = scene("interventions")
    answers = {"ip_right": " the", "ip_wrong": " and"}  # each one token of the tiny tokenizer
    values = page.values({"ip_clean": CLEAN, "ip_corrupt": CORRUPT, "ip_model": folders[family]})
    values = page.values(values, **answers, ip_open_heads=True, ip_open_dla=True)
    out = page.run(page.config(values))
    _, clean, tokenizer = reference(folders[family], CLEAN)
    _, corrupt, _ = reference(folders[family], CORRUPT)
    (right,), (wrong,) = (
        tokenizer(a, add_special_tokens=False)["input_ids"] for a in answers.values()
    )
    assert out.diffs[0] == pytest.approx(float(clean[right] - clean[wrong]), abs=1e-4)
    assert out.diffs[1] == pytest.approx(float(corrupt[right] - corrupt[wrong]), abs=1e-4)
    views = set(page.views(out, values))
    assert {"ip_diff", "ip_resid", "ip_attr_heads"} <= views
    lm = own.own_llm(folders[family])
    if family in DIRECT:  # the direct logit attribution's parts sum to the whole (GPT-2: its
        parts = page.ops.attribute(lm, out.pair)  # LayerNorm's centring and biases included)
        assert parts.total == pytest.approx(parts.whole, abs=1e-4)
        assert (parts.bias != 0) == (family == "gpt2")
        assert "ip_dla" in views
    else:  # Gemma's normed attention outputs: refused, with the reason
        assert "ip_dla" not in views
        assert "normalises each attention output" in page.ops.direct_problem(lm)


def test_generation_on_a_sliding_window_reads_each_layers_window(folders):
    """Gemma 2's every other layer attends to its last 16 keys only: each new token's row sums
    to 1 over the keys it saw, and is 0 before its window on those layers."""
    page = scene("language-model")
    values = page.values({"lm_text": PROMPT, "lm_model": folders["gemma2"], "lm_open_gen": True})
    out = page.run(page.config(values))
    lm = own.own_llm(folders["gemma2"])
    gen = page.ops.generate(lm, out.fwd.ids, 6, Decoding())
    n, p = gen.n_new, len(out.fwd.ids)
    rows = gen.rows[:, :, :n]  # (L, H, N, P + N)
    for step in range(n):
        seen = rows[:, :, step, : p + step + 1]
        np.testing.assert_allclose(seen.sum(-1), 1.0, atol=1e-5)
    window = lm.model.config.sliding_window
    sliding = [i for i, kind in enumerate(lm.model.config.layer_types) if kind != "full_attention"]
    assert sliding and p > window
    assert np.all(rows[sliding, :, 0, : p + 1 - window] == 0)


def test_a_phi_model_that_turns_part_of_each_head_is_refused_with_its_family_named(folders):
    page = scene("language-model")
    values = page.values({"lm_model": folders["phi4"]})
    with pytest.raises(SceneInputError) as err:
        page.run(page.config(values))
    assert "is a `phi3` model" in str(err.value) and "only part of each head" in str(err.value)
    assert "the pretrained page opens the others" in str(err.value)


def test_gpt2_runs_from_any_layer_with_its_positions_added_once(folders):
    """The interventions engine hands a layer's input stream to the rest of the model: from each
    layer of a GPT-2 (learned positions, already in that stream) the next-token logits are
    transformers' own."""
    from attnviz.topics.interventions.acts import capture, run_from

    lm = own.own_llm(folders["gpt2"])
    _, logits, tokenizer = reference(folders["gpt2"], PROMPT)
    acts = capture(lm, tokenizer(PROMPT, add_special_tokens=False)["input_ids"])
    for layer in range(lm.n_layers):
        found = run_from(lm, acts.resid[layer][None], layer)[0]
        np.testing.assert_allclose(found.numpy(), logits, rtol=1e-4, atol=1e-4)


def test_gpt2_from_python_runs_with_its_cache_and_patches(folders):
    """av.language_model on a GPT-2 folder: its cache against transformers' own run (weights,
    logits, and q, k, v as the layer's c_attn makes them from its ln_1), and the patching engine
    on a pair (the clean stream patched in everywhere brings back the clean difference)."""
    from transformers import AutoModelForCausalLM

    lm = av.language_model(folders["gpt2"])
    logits, cache = lm.run_with_cache(PROMPT)
    weights, last, tokenizer = reference(folders["gpt2"], PROMPT)
    np.testing.assert_allclose(cache["pattern", 1], weights[1], atol=1e-5)
    np.testing.assert_allclose(np.asarray(logits)[-1], last, rtol=1e-4, atol=1e-4)
    ref = AutoModelForCausalLM.from_pretrained(folders["gpt2"], attn_implementation="eager")
    ids = tokenizer(PROMPT, add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        stream = ref(input_ids=ids, output_hidden_states=True).hidden_states[1]  # into layer 1
        block = ref.transformer.h[1]
        q, k, v = block.attn.c_attn(block.ln_1(stream))[0].split(ref.config.n_embd, dim=-1)
    for name, made in (("q", q), ("k", k), ("v", v)):
        made = made.view(len(ids[0]), lm.n_heads, -1)  # (T, H, d)
        np.testing.assert_allclose(cache[name, 1], made, atol=1e-5)
    assert "mlp_pre_linear" not in set(cache.keys())  # GPT-2's MLP has no up projection
    patching = lm.patching(CLEAN, CORRUPT, " the", " and")
    sweep, pair = patching.residual(), patching.pair
    changed = [p for p, (a, b) in enumerate(zip(pair.clean, pair.corrupt, strict=True)) if a != b]
    for position in changed:  # at layer 0 the stream is a token's embedding plus its position's:
        ids = torch.tensor([list(pair.corrupt)])  # transformers' own run with that token swapped
        with torch.no_grad():
            embeds = ref.transformer.wte(ids)
            embeds[0, position] = ref.transformer.wte.weight[pair.clean[position]]
            out = ref(inputs_embeds=embeds).logits[0, -1]
        want = float(out[pair.right] - out[pair.wrong])
        assert sweep.values[0, position] == pytest.approx(want, abs=2e-6), position
    assert patching.dla().values.shape == (lm.n_layers, lm.n_heads)


def test_a_folder_outside_the_listed_ones_gets_the_one_message(folders, tmp_path):
    page = scene("interventions")
    for typed in (str(tmp_path), "/etc", folders["qwen2"] + "/../../.."):
        with pytest.raises(SceneInputError) as err:
            page.run(page.config(page.values({"ip_model": typed})))
        assert str(err.value) == OUTSIDE


def test_a_folder_from_python_runs_with_its_cache(folders):
    lm = av.language_model(folders["qwen3"])
    logits, cache = lm.run_with_cache(PROMPT)
    weights, last, _ = reference(folders["qwen3"], PROMPT)
    np.testing.assert_allclose(cache["pattern", 1], weights[1], atol=1e-5)
    np.testing.assert_allclose(np.asarray(logits)[-1], last, rtol=1e-4, atol=1e-4)
    assert av.language_model(folders["qwen3"]).wrapped is lm.wrapped  # loaded once, shared


def test_a_gemma_folder_from_python_refuses_what_does_not_split(folders):
    lm = av.language_model(folders["gemma3_text"])
    _, cache = lm.run_with_cache(PROMPT)
    with pytest.raises(SceneInputError, match="normalises each attention output"):
        lm.head_logits(cache, 1, 0, 3)


def test_a_folder_over_the_servers_size_bound_is_refused_before_loading(folders, monkeypatch):
    folder = str(tiny_family("llama", Path(folders["llama"]).parent / "never-loaded"))
    monkeypatch.setenv(own.SIZE_ENV, "0.01")  # 10 kB: less than any tiny model's weights
    mb = own.weights_mb(folder)
    assert mb > 0.01
    page = scene("language-model")
    with pytest.raises(SceneInputError) as err:
        page.run(page.config(page.values({"lm_model": folder, "lm_text": "the"})))
    said = str(err.value)
    assert f"holds {mb:,.0f} MB of weights" in said and own.SIZE_ENV in said, said


def test_a_slow_load_keeps_no_one_waiting_on_a_model_already_loaded(folders, monkeypatch):
    """While one session's folder loads (held here until released), another session's model
    that is already loaded comes back at once, and a second asker of the loading folder gets
    the same model once it is there."""
    ready = own.own_llm(folders["llama"])
    slow = str(tiny_family("qwen2", Path(folders["llama"]).parent / "slow"))
    release, started = threading.Event(), threading.Event()
    real_load = own._load

    def held(*args):
        started.set()
        release.wait(30)
        return real_load(*args)

    monkeypatch.setattr(own, "_load", held)
    got: list = []
    first = threading.Thread(target=lambda: got.append(own.own_llm(slow)))
    second = threading.Thread(target=lambda: got.append(own.own_llm(slow)))
    first.start()
    assert started.wait(30)
    second.start()
    began = time.monotonic()
    assert own.own_llm(folders["llama"]) is ready
    assert time.monotonic() - began < 1.0, "a loaded model waited for another folder's load"
    release.set()
    first.join(30)
    second.join(30)
    assert len(got) == 2 and got[0] is got[1]


def test_what_flows_through_a_gpt2_head_adds_up_to_its_attention_output(folders):
    """Σ_h Σ_j α_ij W_O^h v_j (+ c_proj's bias) is what GPT-2's attention adds at i: the page's
    per-source vectors, read off c_attn and c_proj, against the model's own attention output."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from attnviz.core.hooks import module_cache
    from attnviz.topics.language_model import readouts

    lm, layer = own.own_llm(folders["gpt2"]), 1
    ids = AutoTokenizer.from_pretrained(folders["gpt2"])(PROMPT)["input_ids"]
    fwd = readouts.forward(lm, ids)
    vectors = readouts.head_vectors(lm, fwd, layer)  # (H, T, D): W_O^h v_j per source j
    mixed = np.einsum("hij,hjd->id", fwd.attentions[layer], vectors)  # (T, D)
    model = AutoModelForCausalLM.from_pretrained(folders["gpt2"], attn_implementation="eager")
    attn = model.eval().transformer.h[layer].attn
    with torch.no_grad(), module_cache(outputs={"attn": [attn]}) as seen:
        model(input_ids=torch.tensor([ids]))
    bias = attn.c_proj.bias.detach().numpy()
    np.testing.assert_allclose(mixed + bias, seen["attn"][0][0].numpy(), atol=1e-5)


def test_what_every_gpt2_head_writes_plus_the_rest_is_its_own_logits(folders):
    """GPT-2's final LayerNorm, its division frozen at this run's, is linear too once the parts
    are centred: every head's direct effect (head_logits), plus the embedding's, every MLP's
    and every W_O bias's written here through torch's LayerNorm arithmetic and lm_head, give
    the model's own logits; the page's bars under "what flows" are the head's top effects."""
    lm = av.language_model(folders["gpt2"])
    logits, cache = lm.run_with_cache(PROMPT)
    query = len(cache.ids) - 1
    heads = [
        lm.head_logits(cache, layer, h, query)
        for layer in range(lm.n_layers)
        for h in range(lm.n_heads)
    ]
    model = lm.wrapped.model
    rest = torch.from_numpy(cache["resid_pre", 0][query])  # tokens plus positions
    for layer, block in enumerate(model.transformer.h):
        rest = rest + torch.from_numpy(cache["mlp_out", layer][query]) + block.attn.c_proj.bias
    final = torch.from_numpy(cache["resid_post", lm.n_layers - 1][query])  # before ln_f
    norm = model.transformer.ln_f
    std = (final.var(unbiased=False) + norm.eps).sqrt()
    with torch.no_grad():
        from_rest = model.lm_head((rest - rest.mean()) / std * norm.weight + norm.bias)  # (V,)
    summed = sum(out.effect for out in heads) + from_rest.numpy()
    np.testing.assert_allclose(summed, np.asarray(logits)[query], atol=1e-4)
    page = scene("language-model")
    values = page.values({"lm_text": PROMPT, "lm_model": folders["gpt2"]})
    values = page.values(values, lm_layer=1, lm_head=2, lm_flow=True)
    drawn = page.views(page.run(page.config(values)), values, {"lm_writes"})["lm_writes"]
    want = lm.head_logits(cache, 1, 2, query)
    expected = want.promoted(5) + want.suppressed(5)[::-1]
    np.testing.assert_allclose(drawn.data[0].x, [v for _, v in expected], atol=1e-5)
