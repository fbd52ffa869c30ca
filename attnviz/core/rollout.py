"""Attention rollout (Abnar & Zuidema, 2020), the one implementation in the engine.

With the residual connection, each layer's effective mixing is Â = ½(mean over heads of A) + ½I,
rows renormalised; rollout = Â_L ··· Â_1 (the last layer on the left). Pure NumPy; used by the
pretrained page (text tokens) and the vision page (class token and patches).
"""

from __future__ import annotations

import numpy as np


def rollout(attentions: np.ndarray) -> np.ndarray:
    """attentions (L, H, T, T) -> (T, T): how much each output position draws on each input."""
    t = attentions.shape[-1]
    result = np.eye(t)  # (T, T)
    for layer in attentions:  # (H, T, T)
        mixed = 0.5 * layer.mean(0) + 0.5 * np.eye(t)  # (T, T)
        mixed = mixed / mixed.sum(-1, keepdims=True)
        result = mixed @ result
    return result
