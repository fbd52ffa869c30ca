"""The Attention since 2017 page's Try-this claims, performed: its presets trained once per
session by the page's own scene (the `trained` fixture, one thread, evaluated at the start and
the end only), and its calculator at the context lengths the claims name. The lesson's computed
answers come from the same arithmetic."""

from __future__ import annotations

import pytest

from attnviz.topics.attention_since_2017.configs import cache_table
from attnviz.topics.attention_since_2017.params import CACHE_PRESET, SINK_PRESET
from attnviz.topics.attention_since_2017.scene import (
    SCENE,
    cache_numbers,
    first_token_shares,
    so_far,
)
from tests.support.trained import FINAL

URL = "attention-since-2017"


def shares(run) -> dict[str, float]:
    """Oracle: the mean weight on key 0 over layers, heads, sequences and queries 1..T−1,
    recomputed here from the last snapshot's (L,) per-layer means of equal-sized layers."""
    snap = run.snapshots[-1][1]
    return {
        v: float(sum(s["first_token"]) / len(s["first_token"])) for v, s in snap.variants.items()
    }


@pytest.mark.try_this("attention-since-2017", 1)
def test_gated_attention_puts_less_weight_on_the_first_token(trained):
    run = trained(URL, SINK_PRESET, every=FINAL)
    assert run.status == "done" and run.history.eval_step[-1] == 400
    measured = shares(run)
    assert measured == pytest.approx(first_token_shares(so_far(run.history, run.snapshots, None)))
    assert measured["gated"] < measured["mha"], measured


@pytest.mark.try_this("attention-since-2017", 2)
def test_grouped_query_and_latent_shrink_the_cache_at_about_the_same_accuracy(trained):
    run = trained(URL, CACHE_PRESET, every=FINAL)
    assert run.job.spec.variants == ("mha", "gqa", "mla")
    per_token, _ = cache_numbers(run.job.spec)
    mha = 2 * 2 * 4 * 8 * 2  # layers × K and V × heads × d_head × bf16 bytes
    assert list(per_token) == [mha, mha / 2, mha / 4]
    last = run.history.extra[-1]
    accuracy = {v: last[f"{v} accuracy"] for v in ("mha", "gqa", "mla")}
    assert min(accuracy.values()) > 0.95, accuracy


@pytest.mark.try_this("attention-since-2017", 3)
def test_at_8k_llama_caches_1_gib_and_deepseeks_latent_is_over_70_times_smaller():
    rows = {row.name: row for row in cache_table(8_192)}
    assert rows["Llama 3 8B"].total == 2**30
    assert rows["Llama 3 8B"].mha_total == 4 * 2**30
    assert rows["DeepSeek-V3"].times_smaller == 128 * (192 + 128) / 576
    assert rows["DeepSeek-V3"].times_smaller > 70


@pytest.mark.try_this("attention-since-2017", 4)
def test_a_longer_context_lowers_gpt_oss_bytes_per_token_but_not_llamas():
    short = {row.name: row.per_token for row in cache_table(8_192)}
    long = {row.name: row.per_token for row in cache_table(131_072)}
    assert long["gpt-oss-20b"] < short["gpt-oss-20b"]
    assert long["Llama 3 8B"] == short["Llama 3 8B"]


def test_the_lessons_answers_are_the_arithmetic():
    values = SCENE.values()
    answers = SCENE.answers(None, values)
    assert answers["mqa_saving"].answer == "4×"  # 4 query heads, 1 key/value head
    assert answers["llama_ratio"].answer == "4×"  # 32 query heads, 8 key/value heads


def test_a_differential_map_shows_its_weights_below_zero_on_a_diverging_scale():
    """Lesson 11's reveal says a differential map can go below 0: its map must show it (on 0…1
    Blues, every negative weight was drawn white, like a zero)."""
    values = SCENE.values(sv_variants=("mha", "diff"))
    fig = SCENE.views(SCENE.run(SCENE.config(values)), values, {"sv_maps"})["sv_maps"]
    diff = next(trace for trace in fig.data if "diff" in trace.hovertemplate)
    assert min(min(row) for row in diff.z) < 0  # untrained, λ > 0: some weights are negative
    assert all(trace.zmin == -1 and trace.zmax == 1 for trace in fig.data)
    assert "below 0" in fig.layout.title.text
