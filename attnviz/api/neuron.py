"""BertViz's neuron view, from Python: one query's attention row taken apart, as the pretrained
page's "one weight taken apart" draws it: q ∘ k_j for every key (T, d_head), whose row sums over
√d_head are the scores q·k_j / √d_head, and their softmax, the model's own attention row.

    >>> import attnviz as av
    >>> view = av.neuron_view(text="The cat sat on the mat.", layer=2, head=5, query=3)
    >>> view.figures()  # {"products": ..., "scores": ..., "softmax": ...} Plotly figures
    >>> view.save("neuron_view.html")                 # one offline page; in Jupyter it shows
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from attnviz.api.inputs import pretrained_outcome
from attnviz.io.html_export import figures_html, write_html
from attnviz.topics.scene import SceneInputError

__all__ = ["NeuronView", "neuron_view"]


@dataclass(frozen=True)
class NeuronView:
    """The three figures of one query's row taken apart; shows itself in Jupyter (an iframe),
    `.html()` is a standalone document, `.save(path)` writes it."""

    products: go.Figure  # q ∘ k_j: (T, d_head)
    scores: go.Figure  # q·k_j / √d_head: (T,)
    softmax: go.Figure  # the attention row: (T,)
    title: str

    def figures(self) -> dict[str, go.Figure]:
        return {"products": self.products, "scores": self.scores, "softmax": self.softmax}

    def html(self) -> str:
        return figures_html(self.title, self.figures())

    def save(self, path: str | Path) -> int:
        return write_html(Path(path), self.html())

    def _repr_html_(self) -> str:
        doc = html.escape(self.html(), quote=True)
        return f'<iframe srcdoc="{doc}" style="width:100%;height:1500px;border:0"></iframe>'


def neuron_view(
    path_or_model: Any = None,
    text: str = "The animal didn't cross the street because it was too tired.",
    *,
    layer: int = 0,
    head: int = 0,
    query: int = 0,
    tokenizer: Any = None,
) -> NeuronView:
    """Query token `query`'s attention in `layer`, `head` taken apart (BertViz's neuron view) of
    a Hugging Face model with its `tokenizer`, a local folder, or None (the bundled MiniLM), on
    the string `text`. Attention weights alone hold no queries or keys: refused, saying what to
    pass; a layer, head or query outside the model is refused by its range."""
    page, out, picked = pretrained_outcome(
        path_or_model, text, tokenizer, layer=layer, head=head, query=query
    )
    if out.attended.queries.shape[-1] == 0:  # (L, H, T, d_head): d_head 0 from weights alone
        raise SceneInputError(
            "the neuron view needs the model's queries and keys, which attention weights do not "
            "hold: pass the model with its tokenizer, a model folder, or None (the bundled MiniLM)"
        )
    from attnviz.topics.pretrained.scene import QUERY_KEY_VIEWS  # q ∘ k, scores, softmax

    drawn = page.views(out, picked, set(QUERY_KEY_VIEWS))
    title = f"Neuron view: layer {layer}, head {head}, query {out.attended.tokens[query]!r}"
    return NeuronView(*(drawn[name] for name in QUERY_KEY_VIEWS), title)
