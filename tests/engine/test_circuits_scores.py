"""Head-type scores and the phase change (attnviz.topics.watch_circuits.scores) against oracles
written out here with explicit loops, on hand-built attention patterns."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.topics.watch_circuits.scores import head_scores, phase_change_step


def causal_rows(rng: np.random.Generator, layers: int, heads: int, t: int) -> np.ndarray:
    """Random causal attention (L, H, T, T): each row a softmax over keys 0..i."""
    logits = rng.normal(size=(layers, heads, t, t)) * 2
    logits[..., np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] = -np.inf
    w = np.exp(logits - logits.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


def half_repeated_ids(rng: np.random.Generator, half: int) -> np.ndarray:
    first = rng.permutation(40)[:half]  # distinct tokens: one earlier occurrence each
    return np.concatenate([first, first])


def oracle(w: np.ndarray, half: int) -> dict[str, np.ndarray]:
    """The scores by loops, for a sequence whose second half repeats the first (distinct tokens)."""
    layers, heads, t, _ = w.shape
    out = {
        name: np.zeros((layers, heads)) for name in ("previous", "induction", "sink", "diagonal")
    }
    for layer in range(layers):
        for head in range(heads):
            prev = sink = diag = ind = 0.0
            for i in range(1, t):
                prev += w[layer, head, i, i - 1]
                sink += w[layer, head, i, 0]
                diag += w[layer, head, i, i]
            for i in range(half, t):
                ind += w[layer, head, i, i - half + 1]
            out["previous"][layer, head] = prev / (t - 1)
            out["sink"][layer, head] = sink / (t - 1)
            out["diagonal"][layer, head] = diag / (t - 1)
            out["induction"][layer, head] = ind / (t - half)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_scores_match_the_loop_oracle_on_random_patterns(seed):
    rng = np.random.default_rng(seed)
    half = 6
    w, ids = causal_rows(rng, 2, 3, 2 * half), half_repeated_ids(rng, half)
    got, want = head_scores(w, ids), oracle(w, half)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], atol=1e-12, err_msg=name)


def test_a_batch_averages_its_sequences():
    rng = np.random.default_rng(3)
    half = 5
    ws = [causal_rows(rng, 1, 2, 2 * half) for _ in range(3)]
    ids = np.stack([half_repeated_ids(rng, half) for _ in range(3)])
    got = head_scores(torch.tensor(np.stack(ws, 1)), torch.tensor(ids))  # (L, B, H, T, T)
    for name in ("previous", "induction", "sink", "diagonal"):
        want = np.mean([oracle(w, half)[name] for w in ws], 0)
        np.testing.assert_allclose(got[name], want, atol=1e-12, err_msg=name)


def test_a_pure_induction_pattern_scores_one_on_induction():
    half, t = 5, 10
    w = np.zeros((1, 1, t, t))
    w[0, 0, 0, 0] = 1
    for i in range(1, t):
        w[0, 0, i, i - half + 1 if i >= half else 0] = 1  # first half: park on position 0
    scores = head_scores(w, half_repeated_ids(np.random.default_rng(0), half))
    assert scores["induction"][0, 0] == pytest.approx(1.0)
    assert scores["previous"][0, 0] == pytest.approx(1 / (t - 1))  # query 1 -> 0 is both


def test_no_repeated_token_leaves_induction_undefined():
    w = causal_rows(np.random.default_rng(0), 1, 1, 6)
    assert np.isnan(head_scores(w, np.arange(6))["induction"]).all()


def test_mismatched_shapes_are_refused_with_a_message():
    with pytest.raises(ValueError, match="token ids"):
        head_scores(np.zeros((1, 1, 4, 4)), np.arange(5))


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 2),
    st.integers(1, 3),
    st.integers(3, 8),
    st.integers(0, 2**16),
)
def test_scores_lie_in_0_1_and_a_previous_token_pattern_scores_one(layers, heads, half, seed):
    rng = np.random.default_rng(seed)
    t, ids = 2 * half, half_repeated_ids(rng, half)
    for values in head_scores(causal_rows(rng, layers, heads, t), ids).values():
        assert ((values >= -1e-12) & (values <= 1 + 1e-12)).all()
    w = np.zeros((layers, heads, t, t))
    w[..., 0, 0] = 1
    w[..., np.arange(1, t), np.arange(t - 1)] = 1
    scores = head_scores(w, ids)
    np.testing.assert_allclose(scores["previous"], 1.0)
    np.testing.assert_allclose(scores["diagonal"], 0.0)
    np.testing.assert_allclose(scores["induction"], 0.0)  # i - half + 1 != i - 1 for half >= 3
    np.testing.assert_allclose(scores["sink"], 1 / (t - 1))  # only query 1's previous token


def test_the_phase_change_is_the_steepest_fall():
    steps = np.arange(0, 110, 10)
    loss = np.array([3.0, 2.9, 2.85, 2.8, 2.8, 2.7, 1.2, 0.9, 0.8, 0.8, 0.75])
    assert phase_change_step(steps, loss) == 55
    assert phase_change_step(steps, loss, min_drop=2.0) is None
    assert phase_change_step(steps, np.linspace(1, 2, 11)) is None  # rising: no fall
    assert phase_change_step([0], [1.0]) is None
