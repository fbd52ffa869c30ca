"""The logit lens: what the model would predict if it stopped after layer l.

Each layer's output in the residual stream goes through the model's final norm and its
unembedding (`lm_head`), exactly as the last layer's does; the lens of the last layer is the
model's own next-token logits. Each cell (layer, position) keeps its top tokens and their
probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.topics.language_model.forward import Forward, final_norm
from attnviz.topics.pretrained.model import PretrainedModel

TOP = 5
CHUNK = 256  # rows of the residual stream unembedded at a time: (256, V) floats, ~50 MB


@dataclass(frozen=True)
class Lens:
    """(L, T, TOP): the top token ids and probabilities after each layer l = 1..L."""

    ids: np.ndarray  # (L, T, TOP) int
    probs: np.ndarray  # (L, T, TOP) float


def logit_lens(lm: PretrainedModel, fwd: Forward, top: int = TOP) -> Lens:
    """The lens of every layer's output at every position of `fwd` (see the module text)."""
    resid = torch.from_numpy(fwd.resid[1:]).to(lm.model.device)  # (L, T, D): after each layer
    layers, t, d = resid.shape
    flat = resid.reshape(layers * t, d)
    ids, probs = [], []
    with lm.lock, torch.no_grad():
        norm, head = final_norm(lm), lm.model.lm_head
        for start in range(0, flat.shape[0], CHUNK):
            logits = head(norm(flat[start : start + CHUNK])).float()  # (n, V)
            best, i = logits.topk(top, dim=-1)  # the top logits are the top probabilities
            ids.append(i.cpu())
            probs.append(torch.exp(best - torch.logsumexp(logits, dim=-1, keepdim=True)).cpu())
    shape = (layers, t, top)
    return Lens(
        torch.cat(ids).reshape(shape).numpy(), torch.cat(probs).reshape(shape).float().numpy()
    )
