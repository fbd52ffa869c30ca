"""Every head of a language model labelled by what it does, and the attention sinks.

Head scores are measured on a probe (`probe_ids`): a seeded random sequence of ordinary tokens
repeated twice, after the BOS token, in a small batch, as interpretability work measures them.
Each query i ≥ 1 scores (then averaged over queries and the batch):

    previous   weight on i − 1                                   (circuits.scores)
    induction  weight on the token after an earlier occurrence of the current token (idem)
    duplicate  weight on earlier positions holding the same token as i
    first      weight on position 0 (an attention sink)          (circuits.scores' "sink")
    local      weight on the LOCAL positions before i (i − 1 … i − LOCAL), itself excluded

A head's label is the kind it scores highest on, if that score is at least LABEL_MIN.
`first_token_share` is each head's weight on the first token (the readouts compare it with and
without a BOS token).
"""

from __future__ import annotations

import numpy as np

from attnviz.topics.language_model.forward import bos_id, run
from attnviz.topics.pretrained.model import PretrainedModel
from attnviz.topics.watch_circuits.scores import head_scores

KINDS = ("previous", "induction", "duplicate", "first", "local")
KIND_NAMES = {
    "previous": "previous-token",
    "induction": "induction",
    "duplicate": "duplicate-token",
    "first": "first-token (sink)",
    "local": "local",
}
LOCAL = 4
LABEL_MIN = 0.3
PROBE_LENGTH, PROBE_BATCH, PROBE_SEED = 24, 4, 0


def probe_ids(lm: PretrainedModel) -> np.ndarray:
    """(B, 1 + 2N): BOS (when the model has one), then N seeded random tokens, twice. Tokens are
    drawn from the ordinary vocabulary (ids past the special tokens, below the vocabulary size)."""
    rng = np.random.default_rng(PROBE_SEED)
    specials = len(lm.tokenizer.all_special_ids or [])
    high = lm.model.config.vocab_size
    low = min(max(specials, 1) + 1, high - 1)
    half = rng.integers(low, high, size=(PROBE_BATCH, PROBE_LENGTH))
    start = bos_id(lm)
    first = np.full((PROBE_BATCH, 1), start if start is not None else half[0, 0])
    return np.concatenate([first, half, half], axis=1)


def duplicate_and_local(weights: np.ndarray, ids: np.ndarray) -> dict[str, np.ndarray]:
    """{"duplicate", "local"} -> (L, H) for weights (L, B, H, T, T) of ids (B, T)."""
    t = weights.shape[-1]
    earlier = np.tril(np.ones((t, t), bool), k=-1)  # j < i
    same = (ids[:, :, None] == ids[:, None, :]) & earlier  # (B, T, T)
    near = earlier & ~np.tril(np.ones((t, t), bool), k=-LOCAL - 1)  # i − LOCAL ≤ j < i
    has = same.any(-1)  # (B, T): queries with an earlier copy of their token
    dup_mass = (weights * same[None, :, None]).sum(-1)  # (L, B, H, T)
    duplicate = dup_mass.transpose(0, 2, 1, 3)[..., has].mean(-1)  # (L, H)
    local = (weights * near[None, None, None]).sum(-1)[..., 1:].mean((1, 3))
    return {"duplicate": duplicate, "local": local}


def probe_scores(lm: PretrainedModel) -> dict[str, np.ndarray]:
    """{kind: (L, H)} for KINDS on the probe (see the module text)."""
    ids = probe_ids(lm)
    per = np.stack([run(lm, list(map(int, row))).attentions for row in ids], axis=1)
    base = head_scores(per, ids)  # (L, B, H, T, T) of ids (B, T)
    more = duplicate_and_local(per.astype(np.float64), ids)
    return {
        "previous": base["previous"],
        "induction": base["induction"],
        "duplicate": more["duplicate"],
        "first": base["sink"],
        "local": more["local"],
    }


def labels(scores: dict[str, np.ndarray]) -> np.ndarray:
    """(L, H) str: each head's highest-scoring kind, or "" when none reaches LABEL_MIN."""
    stacked = np.stack([scores[k] for k in KINDS])  # (K, L, H)
    best = np.nanargmax(np.nan_to_num(stacked, nan=-1.0), axis=0)
    top = np.take_along_axis(stacked, best[None], 0)[0]
    names = np.array([KIND_NAMES[k] for k in KINDS], dtype=object)
    return np.where(top >= LABEL_MIN, names[best], "")


def first_token_share(attentions: np.ndarray) -> np.ndarray:
    """(L, H): mean weight on position 0 over queries 1..T−1 (0 for a one-token prompt)."""
    if attentions.shape[-1] < 2:
        return np.zeros(attentions.shape[:2])
    return attentions[..., 1:, 0].mean(-1)
