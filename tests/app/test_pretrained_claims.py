"""The pretrained explorer's Try-this items performed on the page, and regressions of issue 10
(rollout on the full maps, GPT-2 folders, model-box messages, t-SNE cache, compare labels,
downloads)."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.figures.pretrained import LONG_MAP_CELLS
from attnviz.topics.pretrained.model import load
from attnviz.topics.pretrained.params import DEFAULT_TEXT, SECOND_TEXT
from tests.engine.test_pretrained import paper_rollout
from tests.engine.test_pretrained_sources import tiny_gpt2
from tests.support.apptest import figures, no_exception, open_page, plotly_array

PAGE = "pages/pretrained_page.py"


def figure(at, start: str) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(start))


def z(fig: dict) -> np.ndarray:
    return np.asarray(plotly_array(fig["data"][0]["z"]), dtype=float)


@pytest.fixture(scope="module")
def minilm():
    return load()


@pytest.mark.try_this("pretrained", 1)
def test_pronoun_preset_it_looks_at_animal():
    at = open_page(PAGE)
    at.button(key="pe_preset_Pronoun coreference").click().run()
    no_exception(at)
    fig = figure(at, "Layer 3, head 1")
    labels, row = fig["data"][0]["x"], z(fig)[10]  # query 10 is 'it'
    assert fig["data"][0]["y"][10] == "it"
    assert row[labels.index("animal")] == pytest.approx(0.68, abs=0.01)
    assert row[labels.index("street")] == pytest.approx(0.05, abs=0.01)


@pytest.mark.try_this("pretrained", 2)
def test_previous_token_preset_and_the_table():
    at = open_page(PAGE)
    at.button(key="pe_preset_Previous-token heads").click().run()
    no_exception(at)
    w = z(figure(at, "Layer 0, head 2"))
    assert np.all(w.argmax(1)[1:] == np.arange(len(w) - 1))  # every line goes one token back
    assert np.diagonal(w, -1).min() > 0.9
    table = at.dataframe[0].value
    previous = table[table["label"] == "previous token"][["layer", "head"]].values.tolist()
    assert [0, 2] in previous and [r for r in previous if r[0] == 1] == [[1, 9]]


@pytest.mark.try_this("pretrained", 3)
def test_hiding_specials_spreads_the_heads_that_park_on_cls(minilm):
    att = minilm.extract(DEFAULT_TEXT).attentions  # (L, H, T, T)
    parking = att[..., 0].mean(-1) > 0.5  # (L, H): more than half of every row on [CLS]
    assert 25 <= parking.sum() <= 35, "about 30 of the 72"
    assert att[..., -1].mean(-1).max() < 0.2, "[SEP] is not where they park"
    layer, head = np.argwhere(parking)[0]
    at = open_page(PAGE)
    at.slider(key="pe_layer").set_value(int(layer)).run()
    at.slider(key="pe_head").set_value(int(head)).run()
    assert z(figure(at, f"Layer {layer}, head {head}"))[:, 0].mean() > 0.5
    at.toggle(key="pe_hide").set_value(True).run()
    no_exception(at)
    fig = figure(at, f"Layer {layer}, head {head}")
    assert "[CLS]" not in fig["data"][0]["x"]
    assert z(fig).mean(0).max() < 0.5  # no column takes most of the weight any more


@pytest.mark.try_this("pretrained", 4)
def test_compare_too_tired_with_too_wide_changes_it_most_in_layer_3_head_1(minilm):
    first, second = minilm.extract(DEFAULT_TEXT), minilm.extract(SECOND_TEXT)
    change = np.abs(first.attentions[:, :, 10] - second.attentions[:, :, 10]).sum(-1)  # (L, H)
    assert np.unravel_index(change.argmax(), change.shape) == (3, 1)
    at = open_page(PAGE, {"pe_layer": "3", "pe_head": "1", "pe_open_compare": "true"})
    no_exception(at)
    fig = figure(at, "First − second, layer 3, head 1")
    assert np.abs(z(fig)[10]).sum() == pytest.approx(change[3, 1], abs=1e-3)
    assert fig["data"][0]["y"][13] == "tired|wide"  # rows labelled with both sentences


@pytest.mark.try_this("pretrained", 5)
def test_long_sentence_preset_draws_and_rolls_out():
    at = open_page(PAGE)
    at.button(key="pe_preset_Rollout on a long sentence").click().run()
    no_exception(at)
    assert any("Model view" in f["layout"]["title"]["text"] for f in figures(at))
    fig = figure(at, "Attention rollout")
    assert "max-pooled" in fig["layout"]["title"]["text"]
    last = int(fig["data"][0]["x"][-1].rsplit("–", 1)[-1])  # the last block's last position
    assert last > 480  # ~500 tokens, [CLS]/[SEP] hidden (the preset hides them)
    assert z(fig).shape == (LONG_MAP_CELLS, LONG_MAP_CELLS)


def test_rollout_with_hidden_specials_is_the_papers_rollout_on_the_full_maps(minilm):
    """Repro: with hide on, rollout ran on renormalised maps (not Abnar & Zuidema's)."""
    at = open_page(PAGE, {"pe_open_layers": "true"})
    at.toggle(key="pe_hide").set_value(True).run()
    no_exception(at)
    fig = figure(at, "Attention rollout")
    assert fig["layout"]["title"]["text"].endswith("(specials hidden)")
    assert any("on the full maps" in m.value for m in at.markdown)
    expected = paper_rollout(minilm.extract(DEFAULT_TEXT).attentions.astype(float))[1:-1, 1:-1]
    np.testing.assert_allclose(z(fig), expected, atol=1e-5)


def test_gpt2_folder_draws_every_view(tmp_path, monkeypatch):
    """Repro: a GPT-2-style folder (fused c_attn) crashed the page with IndexError."""
    monkeypatch.setenv("ATTNVIZ_MODEL_DIRS", str(tmp_path))  # model folders only inside a root
    at = open_page(PAGE)
    at.text_input(key="pe_model").set_value(str(tiny_gpt2(tmp_path))).run()
    no_exception(at)
    assert not at.error
    assert any(f["layout"]["title"]["text"].startswith("q ∘ k") for f in figures(at))
    assert figure(at, "Model view")


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("someone/no-such-model", "not in the local Hugging Face cache"),
        ("x" * 10_000, "holds 10,000 characters"),
    ],
)
def test_model_box_messages_are_whole_and_no_traceback(typed, message):
    at = open_page(PAGE)
    at.text_input(key="pe_model").set_value(typed).run()
    no_exception(at)
    (error,) = at.error
    assert message in error.value and error.value.endswith("for the bundled MiniLM.")


def test_a_typed_path_is_shown_as_typed_not_as_markdown(tmp_path, monkeypatch):
    """Inside a model root the message repeats the path, as a code span: shown as typed, no
    image request, no link (tests/app/test_model_box_links.py parses such messages)."""
    monkeypatch.setenv("ATTNVIZ_MODEL_DIRS", str(tmp_path))
    typed = f"{tmp_path}/![x](http://example.com/a.png)"
    at = open_page(PAGE)
    at.text_input(key="pe_model").set_value(typed).run()
    no_exception(at)
    (error,) = at.error
    assert error.value.startswith(f"there is no model folder at `{typed}`. ")


def test_tsne_is_computed_once_per_input(monkeypatch):
    import attnviz.topics.pretrained.analysis as analysis

    calls = []
    real = analysis.project_queries_keys
    monkeypatch.setattr(
        analysis, "project_queries_keys", lambda *a, **k: calls.append(a[2]) or real(*a, **k)
    )
    at = open_page(PAGE, {"pe_text": "a short sentence for t-SNE", "pe_open_proj": "true"})
    at.radio(key="pe_proj").set_value("tsne").run()
    at.toggle(key="pe_allheads").set_value(True).run()  # a rerun, same input
    no_exception(at)
    assert calls.count("tsne") == 1
    scatter = figure(at, "Queries and keys")
    assert [tr["name"] for tr in scatter["data"]] == ["queries", "keys"]  # not "querys"


def test_every_matrix_view_has_a_download():
    at = open_page(
        PAGE, {"pe_open_compare": "true", "pe_open_layers": "true", "pe_open_proj": "true"}
    )
    keys = {b.key for b in at.get("download_button")}
    for key in ("pe_dl_qk_csv", "pe_dl_rollout_csv", "pe_dl_proj_csv", "pe_dl_diff_csv"):
        assert key in keys, key
