"""The Attention at scale page's Try-this claims 1–5 (masks, linear attention, the count of
scores), each performed on the page's scene as the page runs it, with the expected numbers
written out here (FlashAttention's and the KV cache's, 6–10: test_scale_flash.py and
test_scale_kv_cache.py)."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.attention import row_entropy
from attnviz.topics.attention_at_scale.scene import SCENE

URL = "attention-at-scale"


def run(**values):
    chosen = SCENE.values(values)
    out = SCENE.run(SCENE.config(chosen))
    return out, chosen


def main_title(**values) -> str:
    out, chosen = run(**values)
    return SCENE.views(out, chosen, only={"sc_main"})["sc_main"].layout.title.text


@pytest.mark.try_this("attention-at-scale", 1)
def test_a_causal_window_of_3_counts_3t_minus_3_scores():
    out, _ = run(sc_mask="sliding window", sc_w=3, sc_causal=True)
    t = len(out.tokens)
    title = main_title(sc_mask="sliding window", sc_w=3, sc_causal=True).replace("<br>", " ")
    assert f"{3 * t - 3} of {t * t} scores" in title
    assert f"{t * (t + 1) // 2} of {t * t} scores" in main_title(sc_mask="causal").replace(
        "<br>", " "
    )


def reach_title(values: dict) -> str:
    out, chosen = run(**values)
    return SCENE.views(out, chosen, only={"sc_reach"})["sc_reach"].layout.title.text


@pytest.mark.try_this("attention-at-scale", 2)
def test_each_layer_of_a_causal_window_reaches_w_minus_1_further_back():
    preset = SCENE.table.preset("Causal window, 4 layers")
    assert "draws on 8 tokens before it" in reach_title(preset).replace("<br>", " ")
    deeper = reach_title(preset | {"sc_layers": 5}).replace("<br>", " ")
    assert "draws on 10 tokens before it" in deeper


@pytest.mark.try_this("attention-at-scale", 3)
def test_one_global_token_joins_every_pair_in_two_layers():
    out, _ = run(**SCENE.table.preset("Longformer: global + local"))
    assert (out.first > 0).all() and out.config.layers == 2
    kept = out.masks["global + local"].sum(axis=1)
    assert kept[0] == len(out.tokens) and kept[1:].max() == 4


@pytest.mark.try_this("attention-at-scale", 4)
def test_linear_weights_are_positive_and_flatter_than_softmax():
    out, chosen = run(**SCENE.table.preset("Linear vs softmax"))
    soft, lin = out.linear.softmax_weights.numpy(), out.linear.linear_weights.numpy()
    assert (lin > 0).all() and (soft.min() < lin.min())
    assert (row_entropy(lin) > row_entropy(soft)).all()
    tv = 0.5 * np.abs(soft - lin).sum(-1).mean()
    assert out.linear.mean_tv == pytest.approx(tv, rel=1e-5) and tv > 0.05


@pytest.mark.try_this("attention-at-scale", 5)
def test_a_window_keeps_a_vanishing_share_of_the_scores():
    out, chosen = run(**SCENE.table.preset("Cost as T grows"))
    fig = SCENE.views(out, chosen, only={"sc_main"})["sc_main"]
    names = {trace.name.split(" (")[0]: trace.name for trace in fig.data}
    assert names["full"] == "full (slope 2.00)"
    assert names["sliding window"] == "sliding window (slope 1.00)"
    t = 8192
    kept = sum(1 + min(2, i) + min(2, t - 1 - i) for i in range(t))  # w = 3: |i − j| ≤ 2
    assert kept == 5 * t - 6 and f"{kept / t**2:.2%}" == "0.06%"
    window = next(trace for trace in fig.data if trace.name.startswith("sliding window"))
    assert int(window.y[-1]) == kept
