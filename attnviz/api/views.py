"""The model view and the BertViz-style head view of attention you hold, from Python: a model's
`output_attentions`, an array or tensor, TransformerLens's patterns (with their tokens), a Hugging
Face model with its tokenizer, a local folder, or the bundled MiniLM; drawn as the pretrained page
draws them, the head view as one standalone HTML document.

    >>> import attnviz as av
    >>> av.model_view(text="The animal didn't cross the street because it was too tired.")
    >>> av.head_view("path/to/model-folder", "Some text", layer=3).save("head_view.html")
    >>> out = model(**inputs, output_attentions=True)        # your own model, as in BertViz
    >>> av.head_view(out.attentions, tokenizer.convert_ids_to_tokens(inputs["input_ids"][0]))
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from attnviz.api.inputs import check_selection, pretrained_outcome
from attnviz.io.html_export import figures_html, head_view_block, write_html
from attnviz.topics.scene import SceneInputError
from attnviz.topics.scene_export import head_view_files

__all__ = ["HeadViewHTML", "head_view", "model_view"]


def model_view(
    path_or_model: Any = None,
    text: Any = "The animal didn't cross the street because it was too tired.",
    *,
    tokenizer: Any = None,
    hide: bool = False,
    layers: Sequence[int] | None = None,
    heads: Sequence[int] | None = None,
    value_weighted: bool = False,
) -> go.Figure:
    """Every layer × head as one Plotly figure (the pretrained page's model view; `hide` drops
    [CLS]/[SEP] and renormalises), or the `layers` and `heads` picked, of what you hold:

    - attention weights with their tokens as `text`: the tuple a Hugging Face model returns with
      `output_attentions=True` (per layer (1, heads, T, T)), one (layers, heads, T, T) or
      (heads, T, T) array or tensor, or TransformerLens's `[cache["pattern", l] for l in ...]`;
    - a Hugging Face model with its `tokenizer` (`sdpa` models run with eager attention for
      the call), a local folder, or None (the bundled MiniLM), on the string `text`.

    `value_weighted`: every map as what flows, α_ij ‖W_O v_j‖ over its row (a model is needed).

    >>> fig = model_view(text="The cat sat on the mat.")
    >>> fig.data[0].type  # every layer × head tiled in one heatmap
    'heatmap'
    >>> import numpy as np
    >>> fig = model_view(np.full((6, 4, 3, 3), 1 / 3), ["a", "b", "c"], layers=[2, 5], heads=[0])
    >>> fig.layout.yaxis.ticktext, fig.layout.xaxis.ticktext  # named by their own numbers
    (('layer 2', 'layer 5'), ('0',))
    """
    page, out, picked = pretrained_outcome(path_or_model, text, tokenizer, hide=hide)
    out = _flowing(out) if value_weighted else out
    if layers is None and heads is None:
        main = page.main_view  # the model view
        return page.views(out, picked, {main}, compact=False)[main]  # floats
    from attnviz.figures.pretrained import model_view as draw
    from attnviz.topics.pretrained.scene import drawn, visible

    count, per_layer = out.attended.attentions.shape[:2]
    numbers = check_selection(layers, count, "layer"), check_selection(heads, per_layer, "head")
    tokens, att = visible(out.attended.attentions, out.attended.tokens, hide)
    chosen = drawn(out, att)[numbers[0]][:, numbers[1]]  # (layers picked, heads picked, T, T)
    return draw(chosen, tokens, numbers=numbers)


@dataclass(frozen=True)
class HeadViewHTML:
    """The BertViz-style head view, outside Streamlit: shows itself in Jupyter (an iframe),
    `.html()` is a standalone document, `.save(path)` writes it; `.figure` is the chosen head's
    map as a Plotly figure."""

    data: dict
    figure: go.Figure
    title: str

    def html(self) -> str:
        return figures_html(self.title, {}, extra=head_view_block(self.data, *head_view_files()))

    def save(self, path: str | Path) -> int:
        return write_html(Path(path), self.html())

    def _repr_html_(self) -> str:
        doc = html.escape(self.html(), quote=True)
        height = 140 + 26 * len(self.data["tokens"])
        return f'<iframe srcdoc="{doc}" style="width:100%;height:{height}px;border:0"></iframe>'


def head_view(
    path_or_model: Any = None,
    text: Any = "The animal didn't cross the street because it was too tired.",
    *,
    layer: int = 0,
    head: int | None = None,
    heads: Sequence[int] | None = None,
    tokenizer: Any = None,
    hide: bool = False,
    value_weighted: bool = False,
) -> HeadViewHTML:
    """One layer's head view (every head, the `heads` picked, or only `head`), BertViz-style, of
    what you hold (as `model_view`: weights with their tokens, a model with its tokenizer, a
    folder, or None). A layer or head outside the model is an error that names the range;
    `value_weighted` draws what flows, as `model_view` does.

    >>> import numpy as np
    >>> weights = np.full((2, 3, 4, 4), 0.25)  # (layers, heads, T, T)
    >>> view = head_view(weights, ["the", "cat", "sat", "down"], layer=1, heads=[0, 2])
    >>> view.title, [lines["head"] for lines in view.data["heads"]]
    ('Head view, layer 1', [0, 2])
    >>> head_view(weights, ["the", "cat", "sat", "down"], layer=2)
    Traceback (most recent call last):
    attnviz.topics.scene.SceneInputError: layer 2 is out of range: there are 2 (layer 0 to 1)
    """
    every = head is None
    page, out, picked = pretrained_outcome(
        path_or_model, text, tokenizer, layer=layer, head=head, allheads=every, hide=hide
    )
    out = _flowing(out) if value_weighted else out
    from attnviz.figures.head_view import head_view_data
    from attnviz.topics.pretrained.scene import HEAD_MAP, head_view_input

    picked["pe_head"] = head or 0
    hv = head_view_input(out, picked)
    shown = (
        hv.heads
        if head is not None
        else check_selection(heads, out.attended.attentions.shape[1], "head")
    )
    figure = page.views(out, picked, {HEAD_MAP.name})[HEAD_MAP.name]
    data = head_view_data(hv.weights, hv.tokens, sorted(shown), None)
    return HeadViewHTML(data, figure, f"Head view, layer {layer}")


def _flowing(out: Any) -> Any:
    """The outcome with every map as what flows (`value_weighted=True`): α_ij ‖W_O v_j‖ over
    its row, from the model's own value and output projections; refused for weights alone."""
    from dataclasses import replace

    from attnviz.topics.pretrained.analysis import value_weighted

    norms = out.attended.value_norms  # (L, H, T) or None
    if norms is None:
        raise SceneInputError(
            "value_weighted needs the model's values and output projection, which attention "
            "weights do not hold: pass the model with its tokenizer, a model folder, or None"
        )
    flows = value_weighted(out.attended.attentions, norms)  # (L, H, T, T)
    return replace(out, attended=replace(out.attended, attentions=flows))
