"""What the self-attention page sends to the browser's live query-row view (issue 26):
`live_row_data` carries Q, K, V equal to z W + B computed here in torch from the seeded matrices,
a scale of 1/√e (1 unscaled), the causal flag, row i and the reveal; and the row the view computes
from exactly that data (written out here: softmax of the masked, scaled q_i · k_j, then Σ A_ij v_j)
is the engine's row of the weights and of the output, for any sizes, switches and row."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.topics.self_attention.params import STEP_NAMES
from attnviz.topics.self_attention.scene import SCENE, live_row_data, seeded


def row_from_data(data: dict, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Row i as the browser computes it from the data alone, in torch."""
    q, k, v = (torch.tensor(data[n], dtype=torch.float64) for n in ("q", "k", "v"))
    scores = (k @ q[i]) * data["scale"]  # (m,)
    if data["causal"]:
        scores[i + 1 :] = -math.inf
    weights = torch.softmax(scores, dim=0)
    return weights.numpy(), (weights @ v).numpy()


def outcome(**values):
    vals = SCENE.values(**values)
    return vals, SCENE.run(SCENE.config(vals))


def test_the_data_is_the_seeded_layer_written_out():
    vals, out = outcome(sa_m=3, sa_d=2, sa_e=4, sa_d2=3, sa_i=2, sa_reveal="softmax")
    data = live_row_data(out, vals)
    p = {k: torch.tensor(m, dtype=torch.float64) for k, m in seeded(3, 2, 4, 3, 0, True).items()}
    for name, w, b in (("q", "sa_wq", "sa_bq"), ("k", "sa_wk", "sa_bk"), ("v", "sa_wv", "sa_bv")):
        np.testing.assert_allclose(data[name], (p["sa_z"] @ p[w] + p[b]).numpy(), atol=1e-12)
    assert data["scale"] == 0.5  # 1/√4
    assert (data["causal"], data["row"], data["reveal"]) == (False, 2, STEP_NAMES.index("softmax"))
    json.dumps(data)  # plain JSON: no NumPy scalars or arrays left
    vals, out = outcome(sa_scaled=False, sa_m=2, sa_i=7)
    unscaled = live_row_data(out, vals)
    assert (unscaled["scale"], unscaled["row"]) == (1.0, 1)  # row i within 0..m−1


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(1, 8),
    e=st.integers(1, 8),
    causal=st.booleans(),
    scaled=st.booleans(),
    seed=st.integers(0, 50),
    data=st.data(),
)
def test_the_row_computed_from_the_data_is_the_engines_row(m, e, causal, scaled, seed, data):
    i = data.draw(st.integers(0, m - 1))
    values = {"sa_m": m, "sa_e": e, "sa_causal": causal, "sa_scaled": scaled, "seed": seed}
    vals, out = outcome(**values, sa_i=i)
    weights, output = row_from_data(live_row_data(out, vals), i)
    np.testing.assert_allclose(weights, out.steps["weights"].matrix[i], atol=1e-12)
    np.testing.assert_allclose(output, out.steps["out"].matrix[i], atol=1e-12)
    assert math.fsum(weights) == pytest.approx(1.0, abs=1e-12)
    if causal:
        assert (weights[i + 1 :] == 0).all()
