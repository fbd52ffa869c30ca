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
    (bars,) = view("rb_rms").data
    rms = np.asarray(bars.y, dtype=float)
    assert rms.argmax() == 0 and rms[0] > 10 * rms[1:].max(), rms


@pytest.mark.try_this("real-block", 2)
def test_rope_keeps_lengths_and_the_first_pair_turns_most():
    figure = view("rb_rope")
    lines = [np.hypot(t.x[1], t.y[1]) for t in figure.data]  # before, after of each pair
    np.testing.assert_allclose(lines[0::2], lines[1::2], rtol=1e-4)  # same lengths
    names = [figure.layout[f"xaxis{i + 1 if i else ''}"].title.text for i in range(8)]
    turned = [float(name.split("<br>")[1].split(" ")[0]) for name in names]  # "pair i<br>θ rad"
    assert turned[0] == max(turned) and turned == sorted(turned, reverse=True), turned


@pytest.mark.try_this("real-block", 3)
def test_rope_leaves_the_score_with_itself_and_changes_every_earlier_one():
    for query in (0, 4):  # the first token, the last of 'The capital of France is'
        scores = view("rb_rope_scores", {"rb_query": query})
        plain, turned = (np.asarray(t.y, dtype=float) for t in scores.data)
        assert len(plain) == query + 1
        assert plain[-1] == pytest.approx(turned[-1], rel=1e-5), "with itself: unchanged"
        assert np.all(np.abs(plain[:-1] - turned[:-1]) > 1e-3), (plain, turned)


@pytest.mark.try_this("real-block", 4)
def test_the_last_block_says_paris():
    (bars,) = view("rb_next", preset="The last block").data
    assert bars.x[0] == "␣Paris" and float(bars.y[0]) == pytest.approx(0.77, abs=0.005)
    (colder,) = view("rb_next", {"rb_temp": 0.5}, preset="The last block").data
    assert colder.x[0] == "␣Paris" and float(colder.y[0]) > 0.95
