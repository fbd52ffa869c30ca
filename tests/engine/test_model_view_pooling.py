"""The model view's blocks, max-pooled and block-averaged, with a causal model's blank future
(beyond tests/engine/test_plots.py's one max-pooled block of a full map). The oracle pools each
head's map by explicit loops over the blocks numpy's linspace gives: a block's largest weight it
can see (NaN only when the whole block is a causal model's blank future), or its plain mean; the
blank lines between blocks stay NaN."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.figures.pretrained import MODEL_VIEW_POOL, model_view


def expected_block(m: np.ndarray, n: int, reduce: str) -> np.ndarray:
    """(n, n): `m` (T, T) pooled by loops; T ≤ n keeps every cell."""
    t = m.shape[0]
    edges = np.linspace(0, t, min(t, n) + 1).astype(int)
    spans = list(zip(edges[:-1], edges[1:], strict=True))
    out = np.empty((len(spans), len(spans)))
    for i, (a, b) in enumerate(spans):
        for j, (c, d) in enumerate(spans):
            cells = m[a:b, c:d]
            if reduce == "mean":
                out[i, j] = cells.mean()  # NaN when the block touches the blank future
            else:
                out[i, j] = np.nan if np.isnan(cells).all() else np.nanmax(cells)
    return out


@pytest.mark.parametrize("reduce", ["max", "mean"])
@pytest.mark.parametrize(("t", "causal"), [(5, False), (64, False), (70, True)])
def test_every_block_of_the_tiled_view_is_its_heads_map_pooled(t, causal, reduce):
    rng = np.random.default_rng(t)
    att = rng.dirichlet(np.ones(t), size=(2, 3, t)).astype(np.float32)  # (L, H, T, T)
    if causal:
        att[..., np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] = np.nan
    z = np.asarray(model_view(att, [f"w{i}" for i in range(t)], reduce).data[0].z, dtype=float)
    n = min(t, MODEL_VIEW_POOL)
    for lay in range(2):
        for h in range(3):
            block = z[lay * (n + 1) : lay * (n + 1) + n, h * (n + 1) : h * (n + 1) + n]
            want = expected_block(att[lay, h].astype(np.float64), n, reduce)
            np.testing.assert_allclose(block, want, rtol=1e-5, equal_nan=True)
    gaps = [k * (n + 1) + n for k in range(1)], [k * (n + 1) + n for k in range(2)]
    assert np.isnan(z[gaps[0], :]).all() and np.isnan(z[:, gaps[1]]).all()
    assert z.shape == (2 * (n + 1) - 1, 3 * (n + 1) - 1)
    if causal and reduce == "max":  # the first block row's top-right block lies in the future
        assert np.isnan(z[0, n - 1]) and np.isfinite(z[n - 1, 0])
