"""A long input's single-head and rollout maps are sent max-pooled (issue 26: a 512-token input
sent 4.2 MB): each cell is the largest weight of its block of tokens, and every label names its
block. The oracle pools by explicit loops over the blocks numpy's linspace gives."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.figures.pretrained import LONG_MAP_CELLS, PRINTED_BARS, qk_bars, token_map


def test_a_long_map_is_max_pooled_with_its_peak_kept_and_labels_naming_blocks():
    t = 300
    rng = np.random.default_rng(0)
    m = rng.random((t, t)) * 0.1
    m[123, 7] = 0.9  # one sharp weight: pooling by mean would wash it out
    labels = [f"w{i}" for i in range(t)]
    fig = token_map(m, labels, "Layer 0, head 0")
    z = np.asarray(fig.data[0].z)
    edges = np.linspace(0, t, LONG_MAP_CELLS + 1).astype(int)
    expected = np.array(
        [
            [m[a:b, c:d].max() for c, d in zip(edges[:-1], edges[1:], strict=True)]
            for a, b in zip(edges[:-1], edges[1:], strict=True)
        ]
    )
    np.testing.assert_allclose(z, expected, rtol=1e-6)
    row = np.searchsorted(edges, 123, side="right") - 1
    assert z[row].max() == np.float32(0.9)
    x = list(fig.data[0].x)
    assert len(x) == len(set(x)) == LONG_MAP_CELLS
    assert x[row].startswith(f"w{edges[row]} ") and "max-pooled" in fig.layout.title.text


def test_a_map_of_up_to_256_tokens_is_sent_whole_and_a_signed_map_never_pooled():
    m = np.full((LONG_MAP_CELLS, LONG_MAP_CELLS), 0.5)
    labels = [f"w{i}" for i in range(LONG_MAP_CELLS)]
    assert np.asarray(token_map(m, labels, "t").data[0].z).shape == m.shape
    diff = np.zeros((300, 300))
    diff[5, 5] = -1.0  # a difference of two maps: max-pooling would hide the negatives
    fig = token_map(diff, [f"w{i}" for i in range(300)], "d", zmin=-1, zmax=1)
    assert np.asarray(fig.data[0].z).shape == (300, 300)


@pytest.mark.parametrize("t", [PRINTED_BARS, PRINTED_BARS + 1])
def test_bars_print_their_values_only_up_to_printed_bars_and_always_hover_them(t):
    """512 values printed over 512 bars were unreadable and cost the browser a text layout each
    (issue 26): past PRINTED_BARS keys the score and weight bars print none; y keeps each."""
    scores = np.random.default_rng(1).normal(size=t).astype(np.float32)
    weights = np.exp(scores) / np.exp(scores).sum()
    figs = qk_bars(scores, weights, [f"w{i}" for i in range(t)])
    for fig, values in zip(figs, (scores, weights), strict=True):
        bar = fig.data[0]
        np.testing.assert_allclose(np.asarray(bar.y, dtype=float), values, rtol=1e-6)
        if t <= PRINTED_BARS:
            assert [float(s.replace("−", "-")) for s in bar.text] == pytest.approx(
                values.tolist(), abs=5e-4
            )
        else:
            assert bar.text is None and bar.textposition == "none"
