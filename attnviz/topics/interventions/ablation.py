"""Head ablation: knock heads out of a run and see what the model predicts without them.

Zero ablation sets a head's output to 0 at every position; mean ablation sets it to its mean over
the prompt's positions (the head still adds its average, but nothing that depends on which token
is where).
"""

from __future__ import annotations

import torch

from attnviz.topics.interventions.acts import Acts, run_edited
from attnviz.topics.pretrained.model import PretrainedModel

HOWS = ("zero", "mean")


def _knock_out(heads: list[int], how: str, n_heads: int):
    def edit(z: torch.Tensor) -> torch.Tensor:  # (1, T, H * d)
        out = z.view(*z.shape[:2], n_heads, -1).clone()  # (1, T, H, d)
        for head in heads:
            out[:, :, head] = 0.0 if how == "zero" else out[:, :, head].mean(1, keepdim=True)
        return out.view(z.shape)

    return edit


def ablate(
    lm: PretrainedModel, acts: Acts, picked: list[tuple[int, int]], how: str = "zero"
) -> torch.Tensor:
    """The next-token logits (V,) of `acts`' prompt with the (layer, head)s in `picked` ablated
    (`how`: "zero" or "mean")."""
    if how not in HOWS:
        raise ValueError(f"how must be one of {HOWS}, not {how!r}")
    edits = {
        layer: _knock_out([h for l_, h in picked if l_ == layer], how, lm.n_heads)
        for layer in sorted({layer for layer, _ in picked})
    }
    return run_edited(lm, acts.ids, edits)


MAX_PICKED = 64  # heads knocked out at once


def parse_heads(text: str, layers: int, heads: int) -> tuple[tuple[int, int], ...]:
    """'L23 H3, L29 H1' -> ((23, 3), (29, 1)), each once, in order; ValueError with a message
    for a person for anything else (an unknown form, a layer or head beyond the model's)."""
    picked: list[tuple[int, int]] = []
    for part in (p.strip() for p in text.replace(";", ",").split(",")):
        if not part:
            continue
        words = part.upper().replace("L", " ").replace("H", " ").split()
        if len(words) != 2 or not all(w.isdecimal() and len(w) <= 4 for w in words):
            raise ValueError(
                f"Write each head as L<layer> H<head>, e.g. L23 H3; not {part[:20]!r}."
            )
        layer, head = int(words[0]), int(words[1])
        if layer >= layers or head >= heads:
            raise ValueError(
                f"L{layer} H{head} is not in the model: layers 0–{layers - 1}, heads 0–{heads - 1}."
            )
        if (layer, head) not in picked:
            picked.append((layer, head))
    if len(picked) > MAX_PICKED:
        raise ValueError(f"At most {MAX_PICKED} heads at once.")
    return tuple(picked)
