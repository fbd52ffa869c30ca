"""What the soft-select page sends to the browser's live view (issue 26): the score parameters
exported as lists are exactly the ones the engine scores with (formulas written out here in
NumPy give the engine's scores), and `live_data` carries the table, query, T and slider grid."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnviz.core.attention import SCORE_NAMES
from attnviz.topics.registry import scene
from attnviz.topics.soft_select.select import example_table, score_arguments_json, scores_for

KEYS = example_table()[["key 1", "key 2"]].to_numpy(dtype=float)
QUERY = np.array([0.7, -1.3])


def written_out(name: str, q: np.ndarray, keys: np.ndarray, p: dict) -> np.ndarray:
    """a(q, k_j) from the formulas as a reader would write them."""
    if name == "additive":
        w_q, w_k, w = (np.array(p[n]) for n in ("w_q", "w_k", "w"))
        return np.array([w @ np.tanh(w_q @ q + w_k @ k) for k in keys])
    if name == "general":
        return np.array([q @ np.array(p["w"]) @ k for k in keys])
    return {
        "dot": keys @ q,
        "scaled_dot": keys @ q / np.sqrt(2),
        "cosine": keys @ q / (np.linalg.norm(keys, axis=1) * np.linalg.norm(q)),
        "neg_sq_dist": -((keys - q) ** 2).sum(1),
    }[name]


@pytest.mark.parametrize("name", SCORE_NAMES)
@pytest.mark.parametrize("seed", [0, 7])
def test_the_exported_parameters_score_as_the_engine_does(name, seed):
    from attnviz.topics.soft_select.select import score_params

    exported = score_arguments_json(name, 2, seed)
    json.dumps(exported)  # plain lists of floats
    engine = scores_for(QUERY, KEYS, name, score_params(2, seed))
    np.testing.assert_allclose(written_out(name, QUERY, KEYS, exported), engine, rtol=1e-12)
    assert bool(exported) == (name in ("additive", "general"))


def test_the_seed_changes_the_parameters():
    assert score_arguments_json("general", 2, 0) != score_arguments_json("general", 2, 1)


def test_live_data_carries_the_page_state():
    from attnviz.topics.soft_select.scene import live_data

    page = scene("soft-select")
    values = page.values(ss_q1=-1.2, ss_q2=0.3, ss_score="additive", ss_temp=0.2, seed=3)
    data = json.loads(json.dumps(live_data(page.run(page.config(values)))))
    assert data["query"] == [-1.2, 0.3]
    assert data["temperature"] == 0.2 and data["score"] == "additive"
    assert data["names"] == list(example_table()["name"])
    assert data["keys"] == KEYS.tolist()
    assert data["values"] == [[v] for v in example_table()["value"]]
    assert data["params"] == score_arguments_json("additive", 2, 3)
    assert (data["low"], data["high"], data["step"]) == (-2.0, 2.0, 0.1)
