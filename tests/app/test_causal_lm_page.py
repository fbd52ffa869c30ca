"""The pretrained page pointed at a tiny GPT-2 folder (issue 29, item 5): the causal note, the
masked future drawn blank, and the generation section with its step slider and KV cache length.
One link opens the page on the folder (no MiniLM load), then one more run moves the step."""

from __future__ import annotations

import numpy as np

from attnviz.topics.pretrained.sources import ENV
from tests.support.apptest import figures, no_exception, open_page, plotly_array
from tests.support.tiny_gpt2 import tiny_causal_lm

PAGE = "pages/pretrained_page.py"


def figure(at, start: str) -> dict:
    return next(f for f in figures(at) if f["layout"]["title"]["text"].startswith(start))


def z(fig: dict) -> np.ndarray:
    return np.asarray(plotly_array(fig["data"][0]["z"]), dtype=float)


def test_gpt2_folder_shows_causal_maps_and_generation_over_time(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path))
    at = open_page(PAGE, {"pe_model": str(tiny_causal_lm(tmp_path / "gpt2"))})
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert any("causal: each token sees only earlier ones" in i.value for i in at.info)
    head = z(figure(at, "Layer 0, head 0"))  # the masked future is blank, the rest drawn
    upper = np.triu(np.ones(head.shape, dtype=bool), 1)
    assert np.isnan(head[upper]).all() and not np.isnan(head[~upper]).any()

    rows = z(figure(at, "Generated tokens' attention"))  # default: 8 new tokens
    n, width = rows.shape
    prompt = width - n
    assert n == 8 and prompt > 1
    assert np.isnan(rows[0, prompt + 1 :]).all() and not np.isnan(rows[-1]).any()
    np.testing.assert_allclose(rows[0, : prompt + 1].sum(), 1, atol=1e-5)
    (metric,) = at.metric
    assert metric.label == "KV cache length at step 1" and metric.value == f"{prompt + 1} tokens"

    at.slider(key="pe_gen_step").set_value(3).run()
    no_exception(at)
    assert at.metric[0].value == f"{prompt + 3} tokens"
    bars = figure(at, "Step 3")
    assert len(bars["data"][0]["x"]) == prompt + 3
