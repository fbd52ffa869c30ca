"""The lesson answers of "Finding the heads that answer", computed from the page's own numbers:
which position carries the answer early on, from which layer the last position carries it,
which head has the largest part, and whether knocking the picked heads out flips the answer."""

from __future__ import annotations

import numpy as np

from attnviz.topics.interventions import readouts
from attnviz.topics.interventions.ablation import parse_heads
from attnviz.topics.language_model.scene import model_for
from attnviz.topics.scene import Answer, SceneInputError, Values

THIRDS = 3  # the layers are offered in three ranges


def knocked_out(out, values: Values) -> tuple[tuple[int, int], ...]:
    """The heads the page knocks out, read from their text (SceneInputError: unreadable)."""
    lm = model_for(out.config)
    try:
        return parse_heads(values["ip_ablate"], lm.n_layers, lm.n_heads)
    except ValueError as err:
        raise SceneInputError(str(err)) from None


def _position(out, p: int) -> str:
    return f"{out.clean_tokens[p]} (position {p})"


def early_position(out) -> Answer:
    """The position whose residual patch brings back the most in the first third of layers."""
    lm = model_for(out.config)
    share = readouts.shares(lm, out.pair, readouts.resid_sweep(lm, out.pair).diff)
    early = share[: max(1, share.shape[0] // THIRDS)].mean(0)  # (T,)
    best = int(early.argmax())
    offered = list(dict.fromkeys([best, *out.pair.differ, len(out.pair.clean) - 1, 0]))[:4]
    return Answer.of(_position(out, best), [_position(out, p) for p in sorted(offered)])


def layer_ranges(layers: int) -> list[tuple[int, int]]:
    size = -(-layers // THIRDS)
    return [(lo, min(lo + size, layers) - 1) for lo in range(0, layers, size)]


def answer_layer(out) -> Answer:
    """The range of layers holding the first layer from which a patch at the last position alone
    brings back at least half of the logit difference ("never" when none does)."""
    lm = model_for(out.config)
    share = readouts.shares(lm, out.pair, readouts.resid_sweep(lm, out.pair).diff)[:, -1]  # (L,)
    names = [f"layers {lo}–{hi}" for lo, hi in layer_ranges(share.shape[0])]
    reached = np.flatnonzero(share >= 0.5)
    if not reached.size:
        return Answer.of("never", [*names, "never"])
    first = int(reached[0])
    which = next(i for i, (lo, hi) in enumerate(layer_ranges(share.shape[0])) if lo <= first <= hi)
    return Answer.of(names[which], [*names, "never"])


def top_head(out) -> Answer:
    """The head with the largest part in the direct logit attribution, among the next three."""
    lm = model_for(out.config)
    parts = readouts.dla(lm, out.pair).heads
    order = np.argsort(-parts, axis=None)[:4]
    names = [f"L{i // parts.shape[1]} H{i % parts.shape[1]}" for i in (int(o) for o in order)]
    return Answer.of(names[0], sorted(names))


def knock_out_flips(out, values: Values) -> Answer:
    """Whether the picked heads knocked out make another token the most likely one."""
    lm = model_for(out.config)
    try:
        picked = knocked_out(out, values)
    except SceneInputError:  # the page says what is wrong with the text
        picked = ()
    if not picked:
        return Answer.of("No", ["Yes", "No"])
    k = readouts.knocked(lm, out.pair, picked, values["ip_how"])
    return Answer.of("No" if k.top == out.pair.right else "Yes", ["Yes", "No"])


def answers(out, values: Values) -> dict[str, Answer]:
    return {
        "early_position": early_position(out),
        "answer_layer": answer_layer(out),
        "top_head": top_head(out),
        "knock_out_flips": knock_out_flips(out, values),
    }
