"""The Pretrained model explorer as a scene: a sentence through a real pretrained encoder (the
bundled MiniLM, or a model folder / cached Hub name typed in the model box); the views of every
head (the model view), one head's map, the query and keys behind one weight, rollout, the
query–key projection and, when asked, the difference from a second sentence; the head view's data,
the head table and the lesson answer `top_token`.

`run` reads the model once per input; everything the layer, head, query and hide settings pick
is cut from that result by the views, so a slider move runs no model. The bundled MiniLM is loaded
once per process (model.bundled_model); another model is loaded by `model.load`, or by the loader
a caller hands in (`use_loader`: the page's loads each model once per server).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attnviz.figures.head_view import head_view_data
from attnviz.figures.pretrained import model_view, qk_bars, qk_products, qk_scatter, token_map
from attnviz.figures.text import shown
from attnviz.topics.pretrained import analysis
from attnviz.topics.pretrained.analysis import (
    blank_future,
    difference,
    drop_tokens,
    head_table,
    query_row,
    rollout,
    top_token,
    visible_part,
)
from attnviz.topics.pretrained.model import MAX_TOKENS, Attended, PretrainedModel, bundled_model
from attnviz.topics.pretrained.model import load as load_model
from attnviz.topics.pretrained.params import TABLE, TRY_THIS
from attnviz.topics.pretrained.sources import SourceError, literal
from attnviz.topics.scene import Answer, Scene, SceneInputError, Values, wants
from attnviz.topics.views import metadata_only

SPECIALS = {"[CLS]", "[SEP]", "<s>", "</s>", "[PAD]"}
LEAVE_EMPTY = "Leave the model box empty for the bundled MiniLM."
CAUSAL_NOTE = (
    "This is a causal language model (GPT-2 style), so causal: each token sees only earlier "
    "ones (and itself). The blank upper triangle of every map is the mask: those weights are "
    "exactly 0, not small."
)


class ModelError(SceneInputError):
    """The model box names no model this page can read; `reason` is the loader's, Markdown in
    which user text appears only as code spans (`sources.literal`), so a page shows it as is."""

    def __init__(self, reason: str):
        super().__init__(f"{reason}. {LEAVE_EMPTY}")
        self.reason = reason


_loader: Callable[[str], PretrainedModel] = load_model


def use_loader(loader: Callable[[str], PretrainedModel]) -> None:
    """Load a typed model folder or Hub name with `loader` from now on (the page hands in one
    that keeps each model loaded per server); `model.load` until then."""
    global _loader
    _loader = loader


def model_for(source: str) -> PretrainedModel:
    """The bundled MiniLM ("") or the model at `source` (ValueError saying why it cannot be)."""
    return _loader(source) if source else bundled_model()


@dataclass(frozen=True)
class PretrainedInput:
    model: str  # "" = the bundled MiniLM; else a model folder or a Hub name in the local cache
    text: str


@dataclass(frozen=True)
class PretrainedOutcome:
    given: PretrainedInput
    attended: Attended  # tokens, attentions (L, H, T, T), queries and keys (L, H, T, d_head)
    rollout: np.ndarray  # (T, T): rollout over all layers on the full maps, specials included


def config(values: Values) -> PretrainedInput:
    text = values["pe_text"]
    if not text.strip():
        raise SceneInputError("Type a sentence above (it is empty).")
    return PretrainedInput(values["pe_model"].strip(), text)


def run(given: PretrainedInput) -> PretrainedOutcome:
    """The model's tokens, attentions, queries and keys for the text (its first MAX_TOKENS
    tokens), and rollout; ModelError when the model cannot be loaded or cannot read the text."""
    try:
        attended = model_for(given.model).extract(given.text, MAX_TOKENS)
    except SourceError as err:  # its message quotes user text as code spans only
        raise ModelError(str(err)) from None
    except ValueError as err:  # a foreign message (e.g. the tokenizer's): quoted whole
        raise ModelError(f"the model could not read this text: {literal(str(err), 300)}") from None
    return PretrainedOutcome(given, attended, rollout(attended.attentions))


@dataclass(frozen=True)
class Pick:
    """The layer, head and query token shown (within those the model and sentence have)."""

    layer: int
    head: int
    query: int
    hide: bool  # [CLS]/[SEP] hidden from the maps (rows renormalised)


def pick(out: PretrainedOutcome, values: Values) -> Pick:
    layers, heads, t = out.attended.attentions.shape[:3]
    return Pick(
        min(int(values["pe_layer"]), layers - 1),
        min(int(values["pe_head"]), heads - 1),
        min(int(values["pe_query"]), t - 1),
        bool(values["pe_hide"]),
    )


def shown_positions(tokens: list[str], hide: bool) -> np.ndarray:
    """(T,) bool: the positions on screen (all, or all but [CLS]/[SEP] when hiding them)."""
    keep = np.array([not hide or tok not in SPECIALS for tok in tokens])
    return keep if keep.any() else np.ones(len(tokens), dtype=bool)


def drawn(out: PretrainedOutcome, matrix: np.ndarray) -> np.ndarray:
    """A map (..., T, T) as figures draw it: a causal model's masked future blank (NaN)."""
    return blank_future(matrix) if out.attended.causal else matrix


def kept(tokens: list[str], keep: np.ndarray) -> list[str]:
    """The tokens at the positions `keep` (T,) holds."""
    return [t for t, k in zip(tokens, keep, strict=True) if k]


def visible(attentions: np.ndarray, tokens: list[str], hide: bool) -> tuple[list[str], np.ndarray]:
    """Tokens and attentions (..., T, T), without [CLS]/[SEP] (rows renormalised) if `hide`."""
    keep = shown_positions(tokens, hide)
    if keep.all():
        return tokens, attentions
    return kept(tokens, keep), drop_tokens(attentions, keep)


@dataclass(frozen=True)
class HeadView:
    """What the head view component draws: one layer's maps of the shown tokens."""

    weights: np.ndarray  # (H, T', T'), T' the tokens shown
    tokens: list[str]
    heads: list[int]  # the heads drawn: every one, or the chosen head
    query: int | None  # None while specials are hidden: the indices shift, so no click-to-pick


def head_view_input(out: PretrainedOutcome, values: Values) -> HeadView:
    p, att = pick(out, values), out.attended.attentions
    tokens, weights = visible(att[p.layer], out.attended.tokens, p.hide)
    heads = list(range(att.shape[1])) if values["pe_allheads"] else [p.head]
    return HeadView(weights, tokens, heads, None if p.hide else p.query)


@dataclass(frozen=True)
class QueryKey:
    """One weight taken apart: the query token's q, every key, the scores and their softmax."""

    query: int
    q: np.ndarray  # (d_head,)
    k: np.ndarray  # (T, d_head)
    scores: np.ndarray  # (T,): q·k_j / √d_head
    weights: np.ndarray  # (T,): softmax of the scores, the model's attention row


def query_key(out: PretrainedOutcome, values: Values) -> QueryKey:
    p = pick(out, values)
    q, k = out.attended.queries[p.layer, p.head, p.query], out.attended.keys[p.layer, p.head]
    sees_up_to = p.query if out.attended.causal else None  # a causal query sees no later key
    return QueryKey(p.query, q, k, *query_row(q, k, sees_up_to))


def visible_rollout(out: PretrainedOutcome, values: Values) -> tuple[list[str], np.ndarray]:
    """The rollout's labels as drawn and its (T', T') part on screen (not renormalised)."""
    tokens, hide = out.attended.tokens, bool(values["pe_hide"])
    keep = shown_positions(tokens, hide)
    return shown(kept(tokens, keep)), visible_part(out.rollout, keep)


def head_rows(out: PretrainedOutcome, values: Values) -> pd.DataFrame:
    """What each head does, one row per (layer, head), on the shown tokens."""
    _, att = visible(out.attended.attentions, out.attended.tokens, bool(values["pe_hide"]))
    return pd.DataFrame(head_table(att))


def projection(out: PretrainedOutcome, values: Values) -> np.ndarray:
    """(2T, 2): the chosen head's queries and keys projected together, queries first."""
    p = pick(out, values)
    return analysis.project_queries_keys(  # looked up per call: tests count the calls
        out.attended.queries[p.layer, p.head], out.attended.keys[p.layer, p.head], values["pe_proj"]
    )


def difference_of(
    out: PretrainedOutcome, second: PretrainedOutcome, values: Values
) -> tuple[list[str], np.ndarray]:
    """The chosen head's map of the first sentence minus the second's, on their common leading
    positions (T', T'), labelled "first|second" where their tokens differ ("tired|wide")."""
    p = pick(out, values)
    diff = difference(
        out.attended.attentions[p.layer, p.head], second.attended.attentions[p.layer, p.head]
    )
    pairs = zip(out.attended.tokens, second.attended.tokens[: diff.shape[0]], strict=False)
    return shown([a if a == b else f"{a}|{b}" for a, b in pairs]), diff


def _diff(out: PretrainedOutcome, values: Values, second: PretrainedOutcome | None) -> dict:
    other = values["pe_other"]
    if not other.strip():
        return {}
    second = second or run(PretrainedInput(out.given.model, other))
    labels, diff = difference_of(out, second, values)
    p = pick(out, values)
    title = f"First − second, layer {p.layer}, head {p.head} (common leading positions)"
    fig = token_map(drawn(out, diff), labels, title, zmin=-1, zmax=1, colorscale="RdBu_r")
    return {"diff": fig}


def _head_map(out: PretrainedOutcome, p: Pick) -> go.Figure:
    tokens, att = visible(out.attended.attentions[p.layer, p.head], out.attended.tokens, p.hide)
    title = f"Layer {p.layer}, head {p.head}"
    return token_map(drawn(out, att), shown(tokens), title)


def _query_key_views(out: PretrainedOutcome, values: Values) -> dict[str, go.Figure]:
    qk, tokens = query_key(out, values), out.attended.tokens
    score_fig, soft_fig = qk_bars(qk.scores, qk.weights, tokens)
    products = qk_products(qk.q, qk.k, tokens, tokens[qk.query])
    return {"qk_products": products, "qk_scores": score_fig, "qk_softmax": soft_fig}


def views(
    out: PretrainedOutcome,
    values: Values,
    only: Collection[str] | None = None,
    *,
    points: np.ndarray | None = None,
    second: PretrainedOutcome | None = None,
    compact: bool = True,
) -> dict[str, go.Figure]:
    """The main flow's views and "diff" when named in `only`; `only` None: the views the page
    shows as opened with `values` (the rollout while "Across layers and heads" is open
    (`pe_open_layers`), the projection while "Queries and keys together" is (`pe_open_proj`)).
    `points` (the projection) and `second` (the second sentence's outcome) may be handed in
    when the caller has them already; otherwise they are computed here. The model view's
    weights are bytes (`compact`, what the page sends) or, with compact=False, float32 (the
    notebook API's)."""
    p, figs = pick(out, values), {}
    if wants(only, "model_view"):
        tokens, att = visible(out.attended.attentions, out.attended.tokens, p.hide)
        figs["model_view"] = model_view(drawn(out, att), tokens, compact=compact)
    if wants(only, "pe_head_map"):
        figs["pe_head_map"] = _head_map(out, p)
    if any(wants(only, name) for name in ("qk_products", "qk_scores", "qk_softmax")):
        built = _query_key_views(out, values)
        figs |= {name: fig for name, fig in built.items() if wants(only, name)}
    if wants(only, "rollout") and (only is not None or values["pe_open_layers"]):
        labels, rolled = visible_rollout(out, values)
        title = "Attention rollout, all layers" + (" (specials hidden)" if p.hide else "")
        figs["rollout"] = token_map(drawn(out, rolled), labels, title, zmax=None)
    if wants(only, "qk_scatter") and (only is not None or values["pe_open_proj"]):
        points = projection(out, values) if points is None else points
        figs["qk_scatter"] = qk_scatter(points, out.attended.tokens, values["pe_proj"])
    if only is not None and "diff" in only:
        figs |= _diff(out, values, second)
    return figs


def answers(out: PretrainedOutcome, values: Values) -> dict[str, Answer]:
    """`top_token`: the token the query token weights most in the chosen head, among those shown;
    `attention_row`: that head's row over the shown tokens (predict the attention)."""
    p, tokens = pick(out, values), out.attended.tokens
    row = out.attended.attentions[p.layer, p.head, p.query]  # (T,)
    keep = shown_positions(tokens, p.hide)  # (T,) bool
    shown = [t for t, k in zip(tokens, keep, strict=True) if k]
    return {
        "top_token": Answer.of(*top_token(tokens, row, keep)),
        "attention_row": Answer.of_row(shown, row[keep]),
    }


def head_view(out: PretrainedOutcome, values: Values) -> dict:
    """The head view's data as the page draws it (the chosen layer's heads and query)."""
    hv = head_view_input(out, values)
    return head_view_data(hv.weights, hv.tokens, sorted(hv.heads), hv.query)


SCENE = Scene(
    url="pretrained",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=metadata_only("model_view", sections={"pe_open_compare": ("diff",)}),
    drawn_together=views,
    answers=answers,
    answer_names=("top_token", "attention_row"),
    head_view=head_view,
    large_results=True,  # ~80 MB pickled at 512 tokens
    ranges={  # the model read (a folder's may have more layers than MiniLM's 6) and the text
        "pe_layer": ("layer", lambda out: out.attended.attentions.shape[0]),
        "pe_head": ("head", lambda out: out.attended.attentions.shape[1]),
        "pe_query": ("query token", lambda out: out.attended.attentions.shape[2]),
    },
)
