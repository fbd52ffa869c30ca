"""CircuitsVis's names for one layer's attention (`circuitsvis.attention.attention_heads` and
`attention_patterns`), so that code written for CircuitsVis and TransformerLens runs here
offline: the same arguments in the same order, drawn by this package's model view (a row of
heads) and head view (BertViz's lines).

    >>> import attnviz as av
    >>> logits, cache = av.language_model().run_with_cache("When Mary and John went to the store")
    >>> av.attention_heads(cache["pattern", 18], cache.tokens)        # doctest: +SKIP
    >>> av.attention_patterns(cache.tokens, cache["pattern", 18])     # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from attnviz.api.views import HeadViewHTML, head_view, model_view
from attnviz.topics.scene import SceneInputError

__all__ = ["attention_heads", "attention_patterns"]


def attention_heads(
    attention: Any, tokens: Sequence[str], attention_head_names: Sequence[str] | None = None
) -> go.Figure:
    """One layer's heads side by side: `attention` (heads, query, key) as an array or tensor,
    `tokens` its tokens; `attention_head_names` name the maps (CircuitsVis's "L0H0", …).

    >>> import numpy as np
    >>> fig = attention_heads(np.full((2, 3, 3), 1 / 3), ["a", "b", "c"], ["L0H0", "L0H1"])
    >>> fig.layout.xaxis.ticktext
    ('L0H0', 'L0H1')
    """
    figure = model_view([attention], list(tokens))
    if attention_head_names is not None:
        names = [str(name) for name in attention_head_names]
        shown = figure.layout.xaxis.ticktext
        if len(names) != len(shown):
            raise SceneInputError(
                f"attention_head_names has {len(names)} names for {len(shown)} heads"
            )
        figure.update_xaxes(ticktext=names)
    return figure


def attention_patterns(tokens: Sequence[str], attention: Any) -> HeadViewHTML:
    """One layer's heads as BertViz draws them (lines from each token to those it attends to),
    CircuitsVis's argument order: `tokens`, then `attention` (heads, query, key)."""
    return head_view([attention], list(tokens), layer=0)
