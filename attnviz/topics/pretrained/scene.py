"""The Pretrained model explorer as a scene: a sentence through a real pretrained encoder (the
bundled MiniLM, or a model folder / cached Hub name typed in the model box); the views of every
head (the model view), one head's map, the query and keys behind one weight, rollout, the
query–key projection and, when asked, the difference from a second sentence; the head view's data,
the head table and the lesson answer `top_token`; its `ops`: `load` (a typed model), `generate`.

`run` reads the model once per input; everything the layer, head, query and hide settings pick
is cut from that result by the views, so a slider move runs no model. The bundled MiniLM is loaded
once per process (model.bundled_model); another model is loaded by `model.load`, or by the loader
a caller hands in (`use_loader`: the page's loads each model once per server)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attnviz.figures.head_view import head_view_data
from attnviz.figures.pretrained import model_view, qk_bars, qk_products, qk_scatter, token_map
from attnviz.figures.text import shown
from attnviz.topics.operations import Operations
from attnviz.topics.pretrained import analysis, generation
from attnviz.topics.pretrained.analysis import (
    difference,
    drop_tokens,
    head_table,
    query_row,
    rollout,
    top_token,
    visible_part,
)
from attnviz.topics.pretrained.model import Attended, bundled_model
from attnviz.topics.pretrained.model import load as load_model
from attnviz.topics.pretrained.params import TABLE, TRY_THIS
from attnviz.topics.pretrained.sources import SourceError, literal
from attnviz.topics.scene import Answer, Scene, SceneInputError, Values
from attnviz.topics.views import View

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.pretrained.analysis import blank_future as blank_future
from attnviz.topics.pretrained.generation import Generation as Generation
from attnviz.topics.pretrained.generation import step_rows as step_rows
from attnviz.topics.pretrained.model import MAX_TOKENS as MAX_TOKENS
from attnviz.topics.pretrained.model import PretrainedModel as PretrainedModel

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
    config: PretrainedInput
    attended: Attended  # tokens, attentions (L, H, T, T), queries and keys (L, H, T, d_head)
    rollout: np.ndarray  # (T, T): rollout over all layers on the full maps, specials included


def config(values: Values) -> PretrainedInput:
    text = values["pe_text"]
    if not text.strip():
        raise SceneInputError("Type a sentence above (it is empty).")
    return PretrainedInput(values["pe_model"].strip(), text)


def run(config: PretrainedInput) -> PretrainedOutcome:
    """The model's tokens, attentions, queries and keys for the text (its first MAX_TOKENS
    tokens), and rollout; ModelError when the model cannot be loaded or cannot read the text."""
    try:
        attended = model_for(config.model).extract(config.text, MAX_TOKENS)
    except SourceError as err:  # its message quotes user text as code spans only
        raise ModelError(str(err)) from None
    except ValueError as err:  # a foreign message (e.g. the tokenizer's): quoted whole
        raise ModelError(f"the model could not read this text: {literal(str(err), 300)}") from None
    return PretrainedOutcome(config, attended, rollout(attended.attentions))


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


class Drawn:
    """What the views of one call read: the outcome and the settings, and what a caller may hand
    in because it has it already (`points`: the projection; `second`: the second sentence's
    outcome; `compact`: the model view's weights as bytes, what the page sends, or float32, the
    notebook API's). The query–key figures are computed once for the call."""

    def __init__(
        self,
        out: PretrainedOutcome,
        values: Values,
        *,
        points: np.ndarray | None = None,
        second: PretrainedOutcome | None = None,
        compact: bool = True,
    ):
        self.out, self.values, self.pick = out, values, pick(out, values)
        self.points, self.second, self.compact = points, second, compact

    @functools.cached_property
    def query_key(self) -> dict[str, go.Figure]:
        """The chosen query against every key: its products, scores and softmax."""
        qk, tokens = query_key(self.out, self.values), self.out.attended.tokens
        score_fig, soft_fig = qk_bars(qk.scores, qk.weights, tokens)
        products = qk_products(qk.q, qk.k, tokens, tokens[qk.query])
        return {"products": products, "scores": score_fig, "softmax": soft_fig}


def model_view_view(d: Drawn, values: Values) -> go.Figure:
    tokens, att = visible(d.out.attended.attentions, d.out.attended.tokens, d.pick.hide)
    return model_view(drawn(d.out, att), tokens, compact=d.compact)


def head_map_view(d: Drawn, values: Values) -> go.Figure:
    p, att, norms = d.pick, d.out.attended.attentions, d.out.attended.value_norms
    att, title = att[p.layer, p.head], f"Layer {p.layer}, head {p.head}"
    if values["pe_flow"] and norms is not None:  # what flows: α_ij ‖W_O v_j‖ per row
        att, title = analysis.value_weighted(att, norms[p.layer, p.head]), f"{title}{FLOWS}"
    tokens, att = visible(att, d.out.attended.tokens, p.hide)
    return token_map(drawn(d.out, att), shown(tokens), title)


def rollout_view(d: Drawn, values: Values) -> go.Figure:
    labels, rolled = visible_rollout(d.out, values)
    title = "Attention rollout, all layers" + (" (specials hidden)" if d.pick.hide else "")
    return token_map(drawn(d.out, rolled), labels, title, zmax=None)


def scatter_view(d: Drawn, values: Values) -> go.Figure:
    points = projection(d.out, values) if d.points is None else d.points
    return qk_scatter(points, d.out.attended.tokens, values["pe_proj"])


def diff_view(d: Drawn, values: Values) -> go.Figure | None:
    """The first sentence's map minus the second's (None: no second sentence)."""
    other = values["pe_other"]
    if not other.strip():
        return None
    second = d.second or run(PretrainedInput(d.out.config.model, other))
    labels, diff = difference_of(d.out, second, values)
    p = d.pick
    title = f"First − second, layer {p.layer}, head {p.head} (common leading positions)"
    return token_map(drawn(d.out, diff), labels, title, zmin=-1, zmax=1, colorscale="RdBu_r")


FLOWS = ": what flows, ‖α·W<sub>O</sub>v‖ per row"  # the head map's title with "what flows"
QUERY_KEY_VIEWS = ("qk_products", "qk_scores", "qk_softmax")  # one weight taken apart (the
# notebook API's neuron view draws them too)
HEAD_MAP = View("pe_head_map", head_map_view)  # the notebook API's head view draws it too
# the page shows the rollout while "Across layers and heads" is open (`pe_open_layers`), the
# projection while "Queries and keys together" is (`pe_open_proj`); the difference when named
VIEWS = (
    View("model_view", model_view_view, main=True),
    HEAD_MAP,
    *(
        View(name, lambda d, _, part=part: d.query_key[part])
        for name, part in zip(QUERY_KEY_VIEWS, ("products", "scores", "softmax"), strict=True)
    ),
    View("rollout", rollout_view, when=lambda values: values["pe_open_layers"]),
    View("qk_scatter", scatter_view, when=lambda values: values["pe_open_proj"]),
    View("diff", diff_view, section="pe_open_compare", folded=True),
)


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
    declared=VIEWS,
    prepare=Drawn,
    answers=answers,
    answer_names=("top_token", "attention_row"),
    head_view=head_view,
    large_results=True,  # ~80 MB pickled at 512 tokens
    ops=Operations(load=load_model, generate=generation.generate),
    ranges={  # the model read (a folder's may have more layers than MiniLM's 6) and the text
        "pe_layer": ("layer", lambda out: out.attended.attentions.shape[0]),
        "pe_head": ("head", lambda out: out.attended.attentions.shape[1]),
        "pe_query": ("query token", lambda out: out.attended.attentions.shape[2]),
    },
)
