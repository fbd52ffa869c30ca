"""The data of the BertViz-style head view: tokens in two columns joined by lines whose opacity is
the weight, one colour per head. The component that draws it (attnviz/ui/common/head_view/, with its
.js and .css files) writes user text with textContent, never as HTML."""

from __future__ import annotations

import numpy as np

from attnviz.figures.text import HEAD_COLORS, HEAD_VIEW_MAX


def head_view_data(
    weights: np.ndarray,
    tokens: list[str],
    heads: list[int],
    query: int | None,
    font_px: int = 14,
    threshold: float = 0.01,
) -> dict:
    """JSON for the interactive head view (HEAD_VIEW_JS): the first HEAD_VIEW_MAX tokens and, per
    shown head, its lines (query i, key j, weight w ≥ threshold). Tokens stay plain text: the
    script writes them with textContent, never as HTML."""
    t = min(len(tokens), HEAD_VIEW_MAX)
    lines = []
    for h in heads:
        q, k = np.nonzero(weights[h, :t, :t] >= threshold)
        w = np.round(weights[h, q, k].astype(np.float64), 3)
        color = HEAD_COLORS[h % len(HEAD_COLORS)]
        lines.append(
            {"head": int(h), "color": color, "q": q.tolist(), "k": k.tolist(), "w": w.tolist()}
        )
    labels = [tok.replace(" ", "␣").replace("\n", "⏎") or "∅" for tok in tokens[:t]]
    return {"tokens": labels, "heads": lines, "query": query, "font": font_px}
