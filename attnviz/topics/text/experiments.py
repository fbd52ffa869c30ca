"""The data behind the text page's fold-out experiments, computed only when a section asks and
remembered per input (functools.lru_cache: Streamlit-free, shared by every session of a server):
the padded batch, the shuffle (permutation equivariance), softmax saturation, the other causal
setting, and one query row across temperatures; and the shuffle's lesson, worded by what the
numbers show."""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np

from attnviz.topics.text.attention import (
    PAIR_MAX,
    TextAttention,
    TextConfig,
    analyse,
    padded_batch,
    permutation_experiment,
    saturation_curve,
    temperature_rows,
)
from attnviz.topics.text.params import TEMPERATURES

SATURATION_D_KS = (2, 4, 8, 16, 32, 64, 128, 256, 512)
SAME = 1e-5  # a max difference below this is rounding: the maps are the same


@lru_cache(maxsize=16)
def padded(
    first: str, second: str, cfg: TextConfig, pad_mask: bool
) -> tuple[list[list[str]], np.ndarray]:
    """padded_batch, remembered: (tokens per sentence, weights (2, H, T, T))."""
    return padded_batch(first, second, cfg, pad_mask)


@lru_cache(maxsize=16)
def permutation(tokens: tuple[str, ...], cfg: TextConfig) -> dict:
    """permutation_experiment, remembered."""
    return permutation_experiment(list(tokens), cfg)


@lru_cache(maxsize=1)
def saturation() -> dict[str, np.ndarray]:
    """Mean row entropy vs d_k with and without ÷√d_k (saturation_curve), computed once."""
    return saturation_curve(list(SATURATION_D_KS))


@lru_cache(maxsize=8)
def analysis(text: str, cfg: TextConfig) -> TextAttention:
    """analyse, remembered (the causal experiment's other setting)."""
    return analyse(text, cfg)


def shuffle_encodings(cfg: TextConfig) -> tuple[str, str]:
    """The shuffle compares no positions with the page's encoding (sinusoidal if it has none)."""
    return "none", cfg.positional if cfg.positional != "none" else "sinusoidal"


def shuffles(tokens: list[str], cfg: TextConfig) -> dict[str, dict]:
    """The shuffle experiment on the first PAIR_MAX tokens, per encoding (shuffle_encodings)."""
    kept = tuple(tokens[:PAIR_MAX])
    return {
        pe: permutation(kept, dataclasses.replace(cfg, positional=pe))
        for pe in shuffle_encodings(cfg)
    }


def temperature_sweep(
    scores_row: np.ndarray, causal_query: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """One query row's scores (T,) at each of TEMPERATURES: weights (n, T) and entropies (n,)."""
    return temperature_rows(scores_row, list(TEMPERATURES), causal_query)


def readable(x: float) -> str:
    """A small non-negative difference as a reader would write it: 6 decimals, never 7.02e-19."""
    return f"{x:.6f}" + (" (below 10⁻⁶: rounding)" if x < 1e-6 else "")


def shuffle_lesson(diffs: dict[str, float], causal: bool) -> str:
    """What the shuffle shows, chosen by the measured differences and the causal mask: never a
    claim the printed numbers contradict. `diffs`: max difference per positional encoding, the
    first one "none"."""
    (_, without), (pe, with_pe) = diffs.items()
    if without >= SAME and causal:
        lesson = (
            "The causal mask depends on positions, so even without positional encodings the "
            f"maps differ (max difference {readable(without)}): the mask alone tells the model the "
            "order, and attention is no longer permutation-equivariant. Turn the causal mask "
            "off to see the equivariance."
        )
    elif without >= SAME:
        lesson = (
            f"Without positions the maps differ by {readable(without)}, more than rounding: "
            "something other than positional encodings depends on the order here."
        )
    else:
        lesson = (
            "Without positions the two maps are identical up to the permutation (max "
            f"difference {readable(without)}): attention without positions is "
            "permutation-equivariant (shuffle the tokens and the attention shuffles the same way)."
        )
        if causal:  # equal although the mask is on: this shuffle kept what the mask sees
            lesson += (
                " That holds here only because this shuffle leaves the order the causal mask "
                "sees unchanged; in general the mask depends on positions and breaks it."
            )
    if with_pe >= SAME:
        return lesson + f" With {pe} positions they differ (max difference {readable(with_pe)})."
    return (
        lesson + f" With {pe} positions they agree here too (max difference {readable(with_pe)})."
    )
