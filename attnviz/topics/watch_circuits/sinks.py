"""Attention sinks: where a head parks its attention when it has nothing to look at, and what
removes the sink (a BOS token, softmax-plus-one, sigmoid attention).

The job is the induction one (induction.py) with another attention function
(core.attention.NORMALISERS) and with or without a BOS token: in the first copy of a segment the
induction head has nothing to find, and a softmax head must still put its whole mass somewhere.
The sink share of a head is its mean weight on position 0 (scores.head_scores' "sink"; for
softmax-plus-one and sigmoid, whose rows need not sum to 1, the weight itself, not a fraction of
the row). Evicting position 0 from a sliding window (StreamingLLM) shows whether the model leans
on it: the loss with a window of the last `window` keys, and with that window plus position 0.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from attnviz.core.attention import NORMALISERS, causal_mask
from attnviz.models.transformer import TinyTransformer
from attnviz.topics.scene import Job
from attnviz.topics.watch_circuits.data import Segments
from attnviz.topics.watch_circuits.induction import (
    ATTENTION_ONLY,
    InductionJobSpec,
    SegmentData,
    score_history,
    token_losses,
    train_config,
)

SINK_DATA = SegmentData(seg_min=8, seg_max=15)  # fits with or without BOS (31 or 32 positions)
WINDOW = 16  # keys a sliding window keeps: every copy the task needs is within 14 back


def sink_job(attention: str = "softmax", bos: bool = False, steps: int = 2000) -> Job:
    """The sinks experiment's run: the two-layer induction model with `attention` weights."""
    if attention not in NORMALISERS:
        raise ValueError(f"unknown attention {attention!r}; choose one of {', '.join(NORMALISERS)}")
    spec = InductionJobSpec(
        replace(SINK_DATA, bos=bos), replace(ATTENTION_ONLY, attention=attention)
    )
    return Job(spec, train_config(steps, 1e-2, 64, every=50))


def sink_shares(snapshots: list[tuple[int, dict]]) -> tuple[np.ndarray, np.ndarray]:
    """(steps (S,), each head's mean weight on position 0 over training (S, L, H))."""
    steps, scores = score_history(snapshots)
    return steps, scores["sink"]


def window_mask(length: int, window: int, keep_first: bool = False) -> torch.Tensor:
    """(T, T) causal mask that keeps only the last `window` keys of each query (and key 0 as
    well, with `keep_first`: a sink kept, as StreamingLLM does)."""
    if window < 1:
        raise ValueError(f"the window must hold at least one key, got {window}")
    mask = causal_mask(length)
    i, j = torch.arange(length)[:, None], torch.arange(length)[None, :]
    mask &= i - j < window
    if keep_first:
        mask[:, 0] = True
    return mask


def eviction_losses(
    model: TinyTransformer, data: Segments, window: int = WINDOW
) -> dict[str, float]:
    """The mean loss of the targets whose query sits past the window (so the window has evicted
    position 0): with full causal attention, with the window, and with the window plus
    position 0. {"full", "window", "window + first"}"""
    ids = torch.as_tensor(data.ids)
    t = ids.shape[1]
    if window + 2 > t:
        raise ValueError(f"a window of {window} evicts nothing from {t} positions")
    masks = {
        "full": None,
        "window": window_mask(t, window),
        "window + first": window_mask(t, window, keep_first=True),
    }
    out = {}
    with torch.no_grad():
        for name, mask in masks.items():
            losses = token_losses(model, ids, model(ids, mask))
            out[name] = float(losses[:, window + 1 :].mean())
    return out
