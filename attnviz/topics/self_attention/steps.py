"""Seed 004's self-attention layer, one named intermediate at a time (the step-by-step page).

This module owns the teaching walk-through in NumPy float64; tests/engine/test_steps.py pins it
to the engine's core.attention.scaled_dot_product_attention.

z [m × d] → Q = zW_q + B_q [m × e], K = zW_k + B_k [m × e], V = zW_v + B_v [m × d₂]
→ QKᵀ [m × m] → ÷√e → mask → softmax (each row a distribution) → softmax(·)V [m × d₂].
The biases B are rows (1 × e) broadcast over the m patches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.attention import causal_mask, masked_softmax


@dataclass
class LayerWeights:
    w_q: np.ndarray  # (d, e)
    b_q: np.ndarray  # (1, e)
    w_k: np.ndarray  # (d, e)
    b_k: np.ndarray  # (1, e)
    w_v: np.ndarray  # (d, d2)
    b_v: np.ndarray  # (1, d2)


@dataclass
class Step:
    key: str
    title: str  # formula as shown to the reader
    matrix: np.ndarray
    note: str
    changes: bool = True  # False: the step is switched off, its matrix the one before it


def random_weights(d: int, e: int, d2: int, seed: int, with_bias: bool = True) -> LayerWeights:
    """Seeded weights, scaled so that scores have a readable spread."""
    rng = np.random.default_rng(seed)
    bias = (lambda n: rng.normal(0, 0.5, (1, n))) if with_bias else (lambda n: np.zeros((1, n)))
    w_q, w_k = rng.normal(0, 1, (d, e)), rng.normal(0, 1, (d, e))
    w_v = rng.normal(0, 1, (d, d2))
    return LayerWeights(w_q, bias(e), w_k, bias(e), w_v, bias(d2))


def random_input(m: int, d: int, seed: int) -> np.ndarray:
    """A seeded input z of m patches (rows) with d features each, values rounded for reading."""
    return np.round(np.random.default_rng(seed + 10_000).normal(0, 1, (m, d)), 2)


def compute_steps(
    z: np.ndarray, weights: LayerWeights, causal: bool = False, scaled: bool = True
) -> list[Step]:
    """Every intermediate of the layer, in order, as float64 arrays."""
    m, e = z.shape[0], weights.w_q.shape[1]
    q = z @ weights.w_q + weights.b_q
    k = z @ weights.w_k + weights.b_k
    v = z @ weights.w_v + weights.b_v
    raw = q @ k.T
    scaled_scores = raw / math.sqrt(e) if scaled else raw
    allowed = causal_mask(m).numpy() if causal else np.ones((m, m), dtype=bool)
    shown_masked = np.where(allowed, scaled_scores, -np.inf)
    probs = masked_softmax(torch.from_numpy(scaled_scores), torch.from_numpy(allowed)).numpy()
    out = probs @ v
    mask_title, mask_note = _mask_text(causal)
    divide = f"÷ √e = ÷ {math.sqrt(e):.3g}" if scaled else "(scaling off)"
    scale_note = (
        "keeps scores in softmax's useful range"
        if scaled
        else "scaling off: scores go to the softmax as they are"
    )
    output = "softmax(Q Kᵀ/√e) V" if scaled else "softmax(Q Kᵀ) V"
    return [
        Step("z", "z", z, "the input: one row per patch/token"),
        Step("Q", "Q = z W_q + B_q", q, "what each patch is looking for"),
        Step("K", "K = z W_k + B_k", k, "what each patch offers to be matched on"),
        Step("V", "V = z W_v + B_v", v, "what each patch hands over when attended to"),
        Step("QK", "Q Kᵀ", raw, "row i, column j: how well query i matches key j"),
        Step("scaled", f"Q Kᵀ {divide}", scaled_scores, scale_note, changes=scaled),
        Step("masked", mask_title, shown_masked, mask_note, changes=causal),
        Step(
            "weights", "softmax(·) row by row", probs, "each row is a distribution: ≥ 0, sums to 1"
        ),
        Step("out", output, out, "each output row is a weighted mix of V's rows"),
    ]


SQUARE_STEPS = ("QK", "scaled", "masked", "weights")  # (m, m): query patch × key patch


def step_labels(step: Step) -> tuple[list[str], list[str]]:
    """Row and column labels of a step's matrix, for labelled downloads."""
    m, n = step.matrix.shape
    rows = [f"patch {i}" for i in range(m)]
    if step.key in SQUARE_STEPS:
        return [f"query {r}" for r in rows], [f"key patch {j}" for j in range(n)]
    return rows, [f"{step.key} col {j}" for j in range(n)]


def _mask_text(causal: bool) -> tuple[str, str]:
    """The mask step's title and note, which follow the causal switch."""
    if causal:
        return "causal mask (−∞ above the diagonal)", "causal: query i may not look ahead at j > i"
    return "mask off (nothing removed)", "no mask: every query sees every key; scores unchanged"
