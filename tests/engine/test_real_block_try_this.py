"""The "Inside one block of a real model" page's "Try this" claims
(attnviz.topics.real_block.params.TRY_THIS), performed through its scene on the bundled
SmolLM2-135M with the page's own defaults and presets, read off the views the page draws."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics.real_block.scene import SCENE

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("llm-real")]


def page(overrides: dict | None = None, preset: str | None = None):
    """(the scene's result, its values) as the page opens with `preset` and `overrides`."""
    asked = (SCENE.table.preset(preset) if preset else {}) | (overrides or {})
    values = SCENE.values(asked)
    return SCENE.run(SCENE.config(values)), values


def view(name: str, overrides: dict | None = None, preset: str | None = None):
    out, values = page(overrides, preset)
    return SCENE.views(out, values, only={name})[name]


@pytest.mark.try_this("real-block", 1)
def test_the_first_tokens_stream_dwarfs_the_others():
    bars = view("rb_rms").data[0]
    assert bars.name == "before attention"
    rms = np.asarray(bars.y, dtype=float)
    assert rms.argmax() == 0 and rms[0] > 10 * rms[1:].max(), rms


@pytest.mark.try_this("real-block", 2)
def test_three_query_heads_share_one_key_and_value_head():
    maps = {h: [np.asarray(t.z) for t in view("rb_qkv", {"rb_head": h}).data] for h in range(3, 7)}
    for h in (4, 5):
        assert not np.array_equal(maps[h][0], maps[3][0]), "Q is each head's own"
        np.testing.assert_array_equal(maps[h][1], maps[3][1])  # K
        np.testing.assert_array_equal(maps[h][2], maps[3][2])  # V
    assert not np.array_equal(maps[6][1], maps[3][1]) and not np.array_equal(maps[6][2], maps[3][2])
    assert "kv head 1" in view("rb_qkv", {"rb_head": 3}).layout.title.text


@pytest.mark.try_this("real-block", 5)
def test_is_looks_at_france_and_the_other_rows_at_the_first_token():
    (last,) = view("rb_weights").data  # the query's row: '␣is'
    weights = np.asarray(last.z, dtype=float)[0]
    assert list(last.y) == ["␣is"] and last.x[int(weights.argmax())] == "␣France"
    assert weights.max() == pytest.approx(0.9, abs=0.01), weights
    (whole,) = view("rb_weights", {"rb_whole": True}).data
    rows = np.asarray(whole.z, dtype=float)
    assert np.all(rows[1:-1, 0] >= 0.795), rows[:, 0]  # '0.8 or more' as the cells print it
    np.testing.assert_allclose(rows.sum(1), 1.0, atol=1e-5)


@pytest.mark.try_this("real-block", 6)
def test_the_residual_adds():
    (cells,) = view("rb_residual").data
    z = np.asarray(cells.z, dtype=float)  # stream in, + attention, = middle, + MLP, = out
    np.testing.assert_allclose(z[0] + z[1], z[2], atol=1e-4)
    np.testing.assert_allclose(z[2] + z[3], z[4], atol=1e-4)
    assert np.abs(z[1]).max() > 0.01 and np.abs(z[3]).max() > 0.01, "both halves add something"


@pytest.mark.try_this("real-block", 3)
def test_rope_keeps_lengths_and_the_first_pair_turns_most():
    figure = view("rb_rope")
    lines = [np.hypot(t.x[1], t.y[1]) for t in figure.data]  # before, after of each pair
    np.testing.assert_allclose(lines[0::2], lines[1::2], rtol=1e-4)  # same lengths
    names = [figure.layout[f"xaxis{i + 1 if i else ''}"].title.text for i in range(8)]
    turned = [float(name.split("<br>")[1].split(" ")[0]) for name in names]  # "pair i<br>θ rad"
    assert turned[0] == max(turned) and turned == sorted(turned, reverse=True), turned


@pytest.mark.try_this("real-block", 4)
def test_rope_leaves_the_score_with_itself_and_changes_every_earlier_one():
    for query in (0, 4):  # the first token, the last of 'The capital of France is'
        scores = view("rb_rope_scores", {"rb_query": query})
        plain, turned = (np.asarray(t.y, dtype=float) for t in scores.data)
        assert len(plain) == query + 1
        assert plain[-1] == pytest.approx(turned[-1], rel=1e-5), "with itself: unchanged"
        assert np.all(np.abs(plain[:-1] - turned[:-1]) > 1e-3), (plain, turned)


@pytest.mark.try_this("real-block", 7)
def test_the_last_block_says_paris():
    (bars,) = view("rb_next", preset="The last block").data
    assert bars.x[0] == "␣Paris" and float(bars.y[0]) == pytest.approx(0.77, abs=0.005)
    (colder,) = view("rb_next", {"rb_temp": 0.5}, preset="The last block").data
    assert colder.x[0] == "␣Paris" and float(colder.y[0]) > 0.95
