"""What the interventions page reads out of its model for a prompt pair, each computed once per
model and pair and remembered (the language-model page's `memo`, kept on the model object): both
runs' activations, the two patching sweeps, attribution patching, direct logit attribution, a
knock-out, the circuit's heads, and the lesson answers' numbers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.topics.interventions import ablation, attribution, patching
from attnviz.topics.interventions.acts import Acts, capture
from attnviz.topics.interventions.pairs import Pair
from attnviz.topics.interventions.patching import Progress, Sweep
from attnviz.topics.language_model.readouts import forward, memo
from attnviz.topics.pretrained.model import PretrainedModel

CIRCUIT = 6  # heads shown in the circuit


def acts(lm: PretrainedModel, pair: Pair) -> tuple[Acts, Acts]:
    """(clean, corrupted) activations."""
    return memo(lm, "acts", pair, lambda: (capture(lm, pair.clean), capture(lm, pair.corrupt)))


def diffs(lm: PretrainedModel, pair: Pair) -> tuple[float, float]:
    """The logit differences (right − wrong) of the clean and the corrupted run."""
    clean, corrupt = acts(lm, pair)
    return clean.diff(pair.right, pair.wrong), corrupt.diff(pair.right, pair.wrong)


def shares(lm: PretrainedModel, pair: Pair, diff: np.ndarray) -> np.ndarray:
    """Logit differences as the share of the clean one they bring back (0 = corrupted)."""
    return patching.recovered(diff, *diffs(lm, pair))


def resid_sweep(lm: PretrainedModel, pair: Pair, progress: Progress | None = None) -> Sweep:
    return memo(
        lm, "resid", pair, lambda: patching.resid_sweep(lm, pair, *acts(lm, pair), progress)
    )


def head_sweep(lm: PretrainedModel, pair: Pair, progress: Progress | None = None) -> Sweep:
    return memo(lm, "heads", pair, lambda: patching.head_sweep(lm, pair, *acts(lm, pair), progress))


def estimate(lm: PretrainedModel, pair: Pair) -> attribution.Attribution:
    """Attribution patching's estimates (logit-difference changes)."""
    return memo(lm, "attribution", pair, lambda: attribution.attribution(lm, pair, *acts(lm, pair)))


def resid_agreement(lm: PretrainedModel, pair: Pair) -> float:
    """The correlation of attribution patching's estimates of the residual stream's cells with
    the exact sweep's (every cell of the map; 1.0 when either is constant)."""
    clean, corrupt = diffs(lm, pair)
    exact = resid_sweep(lm, pair).diff.ravel() - corrupt
    guess = estimate(lm, pair).resid.ravel()
    if not (exact.std() and guess.std()):
        return 1.0
    return float(np.corrcoef(exact, guess)[0, 1])


def dla(lm: PretrainedModel, pair: Pair) -> attribution.Dla:
    clean = acts(lm, pair)[0]
    return memo(lm, "dla", pair, lambda: attribution.direct_logit_attribution(lm, clean, pair))


def patched_head(lm: PretrainedModel, pair: Pair, layer: int, head: int) -> float:
    """The logit difference with one head's clean output patched in, run exactly."""

    def compute() -> float:
        logits = patching.patch_heads(lm, *acts(lm, pair), [(layer, head)])
        return float(logits[pair.right] - logits[pair.wrong])

    return memo(lm, "one head", (pair, layer, head), compute)


@dataclass(frozen=True)
class Knocked:
    ids: list[int]  # the 10 most likely next tokens with every head
    before: np.ndarray  # (10,) their probabilities with every head
    after: np.ndarray  # (10,) and with the heads knocked out
    diff: float  # the logit difference with the heads knocked out
    top: int  # the most likely token with the heads knocked out


def knocked(lm: PretrainedModel, pair: Pair, picked: tuple[tuple[int, int], ...], how: str):
    """The clean prompt's next tokens with the `picked` heads knocked out (`how`)."""

    def compute() -> Knocked:
        clean = acts(lm, pair)[0]
        logits = ablation.ablate(lm, clean, list(picked), how)
        before = torch.softmax(clean.logits, -1)
        ids = before.topk(10).indices
        after = torch.softmax(logits, -1)
        diff = float(logits[pair.right] - logits[pair.wrong])
        return Knocked(
            ids.tolist(), before[ids].numpy(), after[ids].numpy(), diff, int(logits.argmax())
        )

    return memo(lm, "knocked", (pair, picked, how), compute)


def circuit(lm: PretrainedModel, pair: Pair) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The CIRCUIT heads with the largest parts (either sign) in the direct logit attribution,
    largest first, and where each looks from the last token of the clean prompt: (K, T)."""
    parts = dla(lm, pair).heads
    order = np.argsort(-np.abs(parts), axis=None)[:CIRCUIT]
    heads = [tuple(int(i) for i in np.unravel_index(int(flat), parts.shape)) for flat in order]
    maps = forward(lm, list(pair.clean)).attentions  # (L, H, T, T)
    return heads, np.stack([maps[layer, head, -1] for layer, head in heads])
