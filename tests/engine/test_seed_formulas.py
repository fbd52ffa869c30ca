"""Seed 004's layer and the soft select of seeds 001/004, against the formulas written out in
NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.io.matrix_text import decode_matrix, encode_matrix
from attnviz.io.table_text import decode_table, encode_table
from attnviz.topics.self_attention.steps import compute_steps, random_input, random_weights
from attnviz.topics.soft_select.select import (
    example_table,
    soft_select,
    table_problems,
    temperature_sweep,
)


def numpy_layer(z, w, causal, scaled):
    """softmax(QKᵀ/√e)V by hand, row by row, as seed 004 writes it."""
    q, k, v = z @ w.w_q + w.b_q, z @ w.w_k + w.b_k, z @ w.w_v + w.b_v
    m, e = q.shape
    probs = np.zeros((m, m))
    for i in range(m):
        visible = range(i + 1) if causal else range(m)
        s = np.array([q[i] @ k[j] / (np.sqrt(e) if scaled else 1.0) for j in visible])
        ex = np.exp(s - s.max())
        probs[i, : len(s)] = ex / ex.sum()
    return q, k, v, probs, probs @ v


@pytest.mark.parametrize(("m", "d", "e", "d2"), [(3, 2, 2, 2), (5, 4, 3, 6), (1, 1, 1, 1)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("scaled", [False, True])
def test_steps_equal_numpy_formulas(m, d, e, d2, causal, scaled):
    z, w = random_input(m, d, seed=7), random_weights(d, e, d2, seed=7)
    steps = {s.key: s.matrix for s in compute_steps(z, w, causal=causal, scaled=scaled)}
    q, k, v, probs, out = numpy_layer(z, w, causal, scaled)
    for key, ref in (("Q", q), ("K", k), ("V", v), ("weights", probs), ("out", out)):
        np.testing.assert_allclose(steps[key], ref, atol=1e-10)
    assert steps["out"].shape == (m, d2)
    np.testing.assert_allclose(steps["weights"].sum(1), np.ones(m))
    if causal and m > 1:
        assert np.all(np.isneginf(steps["masked"][np.triu_indices(m, 1)]))


def test_soft_select_matches_softmax_by_hand():
    table = example_table()
    keys = table[["key 1", "key 2"]].to_numpy()
    values = table[["value"]].to_numpy()
    q = np.array([0.3, -0.4])
    for t in (0.05, 1.0, 20.0):
        res = soft_select(q, keys, values, "dot", t)
        s = keys @ q
        alpha = np.exp(s / t - (s / t).max())
        alpha /= alpha.sum()
        np.testing.assert_allclose(res.weights, alpha, atol=1e-12)
        np.testing.assert_allclose(res.output, alpha @ values, atol=1e-12)
        assert res.hard_index == int(np.argmax(s))


def test_temperature_limits_are_hard_select_and_mean():
    scores = np.array([0.2, 1.5, -0.3])
    sweep = temperature_sweep(scores, np.array([1e-3, 1e4]))
    np.testing.assert_allclose(sweep[0], [0, 1, 0], atol=1e-9)
    np.testing.assert_allclose(sweep[1], np.full(3, 1 / 3), atol=1e-3)


def test_table_round_trip_and_garbled_text():
    table = example_table()
    back = decode_table(encode_table(table))
    np.testing.assert_allclose(
        back[["key 1", "key 2", "value"]], table[["key 1", "key 2", "value"]]
    )
    for garbled in ("x", "a:1:2", "a:1:b:3", ""):
        with pytest.raises(ValueError):
            decode_table(garbled)
    bad = table.copy()
    bad.loc[1, "value"] = np.nan
    assert "Row(s) [2]" in table_problems(bad)[0]
    assert table_problems(table.iloc[:0]) == ["The table is empty: add at least one row."]


def test_matrix_text_round_trip_and_errors():
    m = np.array([[1.5, -2.0], [0.25, 3.0]])
    np.testing.assert_allclose(decode_matrix(encode_matrix(m), (2, 2)), m)
    for text, reason in (
        ("1,2;3", "different lengths"),
        ("1,x", "not a number"),
        ("1,2", "expected"),
        ("nan,1", "NaN"),
    ):
        with pytest.raises(ValueError, match=reason):
            decode_matrix(text, (1, 2) if reason != "expected" else (2, 2))
