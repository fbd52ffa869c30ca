"""Soft select vs database select (seeds 001 and 004) on a small key/value table.

select(q, K, V) returns the value of the one key most similar to q; attention returns
Σ_j α_j v_j with α = softmax(a(q, k_j) / T): 0 ≤ α ≤ 1, Σ α = 1. As T → 0 the soft select
becomes the hard one; as T → ∞ it becomes the plain mean of the values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from attnviz.core.attention import masked_softmax, score


@dataclass
class SelectResult:
    scores: np.ndarray  # (m,) a(q, k_j)
    weights: np.ndarray  # (m,) softmax(scores / T)
    output: np.ndarray  # (v,) Σ α_j v_j
    hard_index: int  # argmax of the scores: the database select
    hard_output: np.ndarray  # (v,) v at hard_index


def example_table() -> pd.DataFrame:
    """Five fruits with 2-D keys (sweetness, size) and a value (price per kg)."""
    return pd.DataFrame(
        {
            "name": ["cherry", "lemon", "melon", "grape", "apple"],
            "key 1": [0.9, -0.8, 0.6, 0.7, 0.2],
            "key 2": [-0.9, -0.2, 1.0, -0.6, 0.1],
            "value": [12.0, 3.0, 2.0, 6.0, 4.0],
        }
    )


def table_problems(table: pd.DataFrame) -> list[str]:
    """Human-readable reasons a hand-edited table cannot be used (empty list if it can)."""
    if len(table) == 0:
        return ["The table is empty: add at least one row."]
    numeric = table[["key 1", "key 2", "value"]].apply(pd.to_numeric, errors="coerce")
    bad = ~np.isfinite(numeric.to_numpy(dtype=float))
    if bad.any():
        rows = sorted({int(r) for r in np.nonzero(bad)[0]})
        named = ", ".join(repr(str(table["name"].iloc[r])) for r in rows)
        return [  # counted from 1: the editor shows no index, so rows are counted as a person does
            f"Row(s) {[r + 1 for r in rows]} ({named}) hold an empty, NaN or infinite number: "
            "type finite numbers."
        ]
    return []


def score_params(dim: int, seed: int = 0, hidden: int = 4) -> dict[str, torch.Tensor]:
    """Seeded parameters for the "additive" and "general" scores."""
    gen = torch.Generator().manual_seed(seed)
    return {
        "w_q": torch.randn(hidden, dim, generator=gen, dtype=torch.float64),
        "w_k": torch.randn(hidden, dim, generator=gen, dtype=torch.float64),
        "w": torch.randn(hidden, generator=gen, dtype=torch.float64),
        # "general": identity plus a seeded twist, so it visibly differs from "dot"
        "w_general": torch.eye(dim, dtype=torch.float64)
        + 0.5 * torch.randn(dim, dim, generator=gen, dtype=torch.float64),
    }


def scores_for(
    query: np.ndarray, keys: np.ndarray, score_name: str, params: dict | None = None
) -> np.ndarray:
    """a(q, k_j) for every key: query (d,), keys (m, d) -> (m,)."""
    params = params or score_params(keys.shape[1])
    q = torch.as_tensor(query, dtype=torch.float64)[None, :]
    k = torch.tensor(np.array(keys, dtype=np.float64))
    return score(score_name, q, k, **score_arguments(score_name, params))[0].numpy()


def score_arguments(score_name: str, params: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The keyword parameters `score(score_name, q, k, **...)` gets from `score_params`: w_q, w_k,
    w for "additive", w (= w_general) for "general", none for the parameter-free scores."""
    if score_name == "additive":
        return {name: params[name] for name in ("w_q", "w_k", "w")}
    if score_name == "general":
        return {"w": params["w_general"]}
    return {}


def score_arguments_json(score_name: str, dim: int, seed: int = 0) -> dict[str, list]:
    """`score_arguments` of the page's seeded parameters as nested lists of floats (what the
    browser's live view scores with: attnviz/ui/static/live_select.js)."""
    args = score_arguments(score_name, score_params(dim, seed))
    return {name: value.tolist() for name, value in args.items()}


def soft_select(
    query: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
    score_name: str = "dot",
    temperature: float = 1.0,
    params: dict | None = None,
) -> SelectResult:
    """Hard and soft select of `values` (m, v) by `query` against `keys` (m, d)."""
    s = scores_for(query, keys, score_name, params)
    w = masked_softmax(torch.from_numpy(s), temperature=temperature).numpy()
    hard = int(np.argmax(s))
    return SelectResult(s, w, w @ values, hard, values[hard])


def temperature_sweep(scores: np.ndarray, temperatures: np.ndarray) -> np.ndarray:
    """Weights for each temperature: (len(temperatures), m)."""
    s = torch.from_numpy(np.asarray(scores, dtype=np.float64))
    return np.stack([masked_softmax(s, temperature=float(t)).numpy() for t in temperatures])
