"""The next token: the model's distribution, and how a token is chosen from it (greedy, or sampled
at a temperature with top-k and top-p and a seed).

Greedy (temperature 0) always gives the same token for the same prompt, so a lesson can ask
about it. Sampling reshapes the distribution with transformers' own logits warpers (temperature,
top-k, top-p, the ones `generate` uses) and draws from it with a seeded torch generator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.hf_import import HF_LOCK


@dataclass(frozen=True)
class Decoding:
    """How the next token is chosen: greedy when temperature is 0."""

    temperature: float = 0.0
    top_k: int = 0  # 0 = no top-k cut
    top_p: float = 1.0  # 1 = no nucleus cut
    seed: int = 0

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0


def probabilities(logits: np.ndarray) -> np.ndarray:
    """(V,) softmax of the logits (float64, sums to 1)."""
    z = np.asarray(logits, dtype=np.float64)
    e = np.exp(z - z.max())
    return e / e.sum()


def top_tokens(logits: np.ndarray, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(ids (k,), probabilities (k,)) of the k most likely next tokens, most likely first."""
    p = probabilities(logits)
    k = min(k, p.size)
    candidates = np.argpartition(-p, k - 1)[:k]  # O(V), not a sort of the whole vocabulary
    order = candidates[np.lexsort((candidates, -p[candidates]))]  # most likely, then lower id
    return order, p[order]


def warped(logits: torch.Tensor, decoding: Decoding) -> torch.Tensor:
    """(V,) the logits after temperature, top-k and top-p (cut tokens at -inf)."""
    with HF_LOCK:
        from transformers import (
            LogitsProcessorList,
            TemperatureLogitsWarper,
            TopKLogitsWarper,
            TopPLogitsWarper,
        )

    warpers = LogitsProcessorList([TemperatureLogitsWarper(decoding.temperature)])
    if decoding.top_k > 0:
        warpers.append(TopKLogitsWarper(decoding.top_k))
    if decoding.top_p < 1.0:
        warpers.append(TopPLogitsWarper(decoding.top_p))
    scores = logits.float().view(1, -1)
    return warpers(torch.zeros((1, 1), dtype=torch.long), scores)[0]


def chooser(decoding: Decoding):
    """logits (V,) -> the next id as a (1, 1) tensor: argmax, or a draw from the warped
    distribution with a generator seeded once (a run of draws repeats for the same seed)."""
    generator = torch.Generator().manual_seed(decoding.seed)

    def choose(logits: torch.Tensor) -> torch.Tensor:
        logits = logits.float().cpu()
        if decoding.greedy:
            return logits.argmax().view(1, 1)
        probs = torch.softmax(warped(logits, decoding), dim=-1)
        return torch.multinomial(probs, 1, generator=generator).view(1, 1)

    return choose
