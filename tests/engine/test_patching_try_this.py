"""The interventions page's "Try this" claims (attnviz.topics.interventions.params.TRY_THIS),
performed on the bundled SmolLM2-135M with the page's own presets through its scene. The model is
loaded once per test worker; the names pair's sweep is computed once and shared."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics.interventions import readouts
from attnviz.topics.interventions.scene import SCENE
from attnviz.topics.language_model.bundled import bundled_llm

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lm():
    return bundled_llm()


@pytest.fixture(scope="module")
def names(lm):
    values = SCENE.values(SCENE.table.preset("Names (IOI)"))
    return SCENE.run(SCENE.config(values)), values


@pytest.mark.try_this("interventions", 1)
def test_names_pair_logit_differences(names):
    out, _ = names
    assert (out.right, out.wrong) == ("␣Mary", "␣John")
    assert out.diffs[0] == pytest.approx(6.1, abs=0.05)
    assert out.diffs[1] == pytest.approx(-5.5, abs=0.05)
    assert out.pair.differ == [9] and out.clean_tokens[9] == "␣John"  # the second name


@pytest.mark.try_this("interventions", 2)
def test_the_answer_moves_from_the_second_name_to_the_last_position(lm, names):
    out, _ = names
    share = readouts.shares(lm, out.pair, readouts.resid_sweep(lm, out.pair).diff)  # (L, T)
    last = len(out.pair.clean) - 1
    assert (share[:21, 9] > 0.9).all(), share[:21, 9]
    assert (share[24:, last] > 0.9).all(), share[24:, last]
    others = share.copy()
    others[:21, 9], others[24:, last] = -1.0, -1.0
    assert others[:21].max() < 0.15 and others[24:].max() < 0.15  # and nowhere else


@pytest.mark.try_this("interventions", 3)
def test_direct_logit_attribution_adds_up_and_l23_h3_leads(lm, names):
    out, _ = names
    parts = readouts.dla(lm, out.pair)
    assert abs(parts.total - parts.whole) < 1e-3
    assert parts.whole == pytest.approx(out.diffs[0], abs=1e-4)
    assert np.unravel_index(parts.heads.argmax(), parts.heads.shape) == (23, 3)


@pytest.mark.try_this("interventions", 4)
def test_knocking_the_three_largest_parts_out_keeps_mary_first(lm, names):
    out, values = names
    parts = readouts.dla(lm, out.pair).heads
    top = [np.unravel_index(int(i), parts.shape) for i in np.argsort(-parts, axis=None)[:3]]
    assert values["ip_ablate"] == ", ".join(f"L{a} H{b}" for a, b in top)  # the preset's heads
    knocked = readouts.knocked(lm, out.pair, tuple((int(a), int(b)) for a, b in top), "zero")
    assert knocked.top == out.pair.right  # ' Mary' still first
    assert 0 < knocked.diff < out.diffs[0] - 1.0  # with a smaller logit difference
    assert SCENE.answers(out, values)["knock_out_flips"].answer == "No"


@pytest.mark.try_this("interventions", 5)
def test_the_circuit_avoids_john_and_finds_mary(lm, names):
    out, _ = names
    heads, rows = readouts.circuit(lm, out.pair)
    parts = readouts.dla(lm, out.pair).heads
    looks = {head: int(row.argmax()) for head, row in zip(heads, rows, strict=True)}
    assert heads[0] == (23, 3) and looks[(23, 3)] == 9  # the second ' John'
    assert out.clean_tokens[9] == "␣John"
    mary = out.clean_tokens.index("␣Mary")
    maps = readouts.forward(lm, list(out.pair.clean)).attentions
    assert [int(maps[23, h, -1].argmax()) for h in (0, 1)] == [mary, mary]
    assert looks[(24, 4)] == mary and parts[24, 4] < 0
