"""The language-model page's "Why does this head look there?" (issue 57, item 1): the cell asked
about (a query and a key of the chosen head, and optionally a second key to compare with), its
score taken apart (qk_parts, computed once per prompt, layer, head and cell: readouts.why_parts),
drawn as a matrix of the largest parts, and said in a sentence."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import DIVERGING, fast_figure, heatmap_spec
from attnviz.figures.fonts import NARROW_TITLE, titled
from attnviz.figures.text import shown
from attnviz.topics.language_model import readouts
from attnviz.topics.language_model.forward import Forward
from attnviz.topics.language_model.params import AUTO  # a setting left to the page
from attnviz.topics.language_model.qk_parts import ScoreParts
from attnviz.topics.pretrained.model import PretrainedModel

SHOWN_PARTS = 8  # rows and columns drawn: the 7 that add most, and the rest summed


@dataclass(frozen=True)
class Why:
    """One cell's score taken apart."""

    query: int
    key: int
    versus: int | None  # the key compared with, if any
    parts: ScoreParts  # every part
    weight: float  # the head's weight on the cell


def cell(attention: np.ndarray, query: int, key: int, versus: int) -> tuple[int, int, int | None]:
    """(query, key, second key or None) from the settings (AUTO: the last token; the key this
    head weights most after the first token, the first token for query 0; none), cut to the
    prompt's length and to the causal mask (a key after the query is never looked at).
    `attention` (T, T): the head's weights."""
    t = attention.shape[0]
    i = t - 1 if query == AUTO else min(query, t - 1)
    j = (1 + int(np.argmax(attention[i, 1 : i + 1])) if i else 0) if key == AUTO else key
    other = None if versus == AUTO else min(versus, i)
    return i, min(j, i), (None if other == min(j, i) else other)


def explain(lm: PretrainedModel, fwd: Forward, layer: int, head: int, asked: tuple) -> Why:
    """The cell `asked` (query, key, second key: settings, AUTO allowed) of head `head` of
    `layer` taken apart."""
    i, j, other = cell(fwd.attentions[layer, head], *asked)
    parts = readouts.why_parts(lm, fwd, layer, head, (i, j), other)
    return Why(i, j, other, parts, float(fwd.attentions[layer, head, i, j]))


def said(why: Why, tokens: list[str], layer: int, head: int) -> str:
    """The sentence under the matrix: where the head looks and with what score, the key's and
    the query's components that add most (each summed over the other side), the largest part."""
    names, score = shown(tokens), why.parts.score
    looks = f"Layer {layer}, head {head} looks from {names[why.query]} to {names[why.key]}"
    if why.versus is None:
        first = f"{looks} with weight {_weight(why.weight)}: its score is {score:+.2f}."
    else:
        first = f"{looks} rather than to {names[why.versus]}: its score is {score:+.2f} higher."
    (key_part, by_key), (query_part, by_query) = why.parts.side(True), why.parts.side(False)
    q_part, k_part, part = why.parts.largest()
    return (
        f"{first} On the key's side {key_part} adds most ({by_key:+.2f}, {_share(by_key, score)}"
        f"), on the query's side {query_part} ({by_query:+.2f}, {_share(by_query, score)}); "
        f"the largest single part is the query's {q_part} against the key's {k_part} "
        f"({part:+.2f})."
    )


def key_question(why: Why) -> tuple[str, list[str]]:
    """(the key's component that adds most to the score, options): it and the three others
    that add most on the key's side, by name."""
    sums = why.parts.parts.sum(0) * np.sign(why.parts.score or 1)  # (Kk,): toward the score
    top = [why.parts.key_names[k] for k in np.argsort(-sums)[:4]]
    return why.parts.side(True)[0], sorted(top)


def _share(part: float, score: float) -> str:
    """A side's part as a share of the score; a part over twice the score (a small score, the
    sum of large parts that cancel) is said so rather than as 1284 %."""
    if not score:
        return "of a zero score"
    if abs(part / score) > 2:
        return "more than the score: other parts cancel it"
    return f"{part / score:.0%} of it"


def _weight(weight: float) -> str:
    """A weight as read: two decimals, or two significant digits under 0.01 (0.0038, not 0.00)."""
    return f"{weight:.2f}" if weight >= 0.01 else f"{weight:.2g}"


def figure(why: Why, tokens: list[str], layer: int, head: int) -> go.Figure:
    """The largest parts (SHOWN_PARTS rows and columns, the rest summed): rows what built the
    query, columns what built the key, each cell's part written in it; they sum to the score."""
    names, top = shown(tokens), why.parts.top(SHOWN_PARTS)
    against = "" if why.versus is None else f" rather than to {names[why.versus]}"
    title = (
        f"Why layer {layer}, head {head} looks from {names[why.query]} to {names[why.key]}"
        f"{against}: {why.parts.score:+.2f}, the sum of these parts"
    )
    bound = float(np.abs(top.parts).max()) or 1.0
    trace, layout = heatmap_spec(
        top.parts,
        top.key_names,
        top.query_names,
        title,
        x_title="what built the key",
        y_title="what built the query",
        zmin=-bound,
        zmax=bound,
        colorscale=DIVERGING,
        show_numbers=True,
        number_format=".1f",  # short enough for a phone's 8 columns
    )
    trace["showscale"] = False  # each cell says its number: the colour bar's room goes to them
    trace["hovertemplate"] = (
        "the query's %{y} part against the key's %{x} part: %{z:+.3f}<extra></extra>"
    )
    layout["height"] = 120 + 34 * len(top.query_names)
    return fast_figure([trace], titled(layout, title, NARROW_TITLE))
