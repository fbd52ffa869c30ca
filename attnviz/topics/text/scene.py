"""The Attention on text page as a scene (seeds 002, 003): a text through a tokenizer, seeded
embeddings and positions into one untrained multi-head layer (attention.analyse); the views of
every head's map, one query's row and a long input's top-k and window; the views of the
fold-out sections (vectors, padding, experiments (a)–(d)), built only when asked by name
(SECTION_VIEWS: the page asks while a section is open); the lesson answer `top_token`; its
`ops`: `shuffle` (experiment (a)'s runs), `export_csv` and `export_json` (the attention's files)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.core.positional import sinusoidal
from attnviz.figures.head_view import head_view_data
from attnviz.figures.long_maps import top_k_figure, window_figure
from attnviz.figures.text import (
    heads_grid,
    positional_figure,
    query_row_figure,
    saturation_figure,
    shown,
    sinusoid_curves,
    temperature_figure,
    vectors_map,
    weights_map,
)
from attnviz.topics.operations import Operations
from attnviz.topics.scene import Answer, Scene, SceneInputError, Values
from attnviz.topics.text import experiments
from attnviz.topics.text.attention import (
    TextAttention,
    TextConfig,
    analyse,
    attention_csv,
    attention_json,
)
from attnviz.topics.text.checks import problems
from attnviz.topics.text.params import TABLE, TRY_THIS
from attnviz.topics.views import Memo, View, grouped

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.text.attention import MAX_TOKENS as MAX_TOKENS
from attnviz.topics.text.attention import PAIR_MAX as PAIR_MAX
from attnviz.topics.text.attention import valid_heads as valid_heads
from attnviz.topics.text.experiments import readable as readable
from attnviz.topics.text.experiments import shuffle_lesson as shuffle_lesson
from attnviz.topics.text.params import HEAD_VIEW_HEADS as HEAD_VIEW_HEADS
from attnviz.topics.text.params import MAX_CHARS as MAX_CHARS
from attnviz.topics.text.params import PRONOUN_TEXT as PRONOUN_TEXT
from attnviz.topics.text.params import TEMPERATURES as TEMPERATURES

LONG_INPUT = 64  # above this many tokens the grid is pooled: add each query's top-k and a window
WINDOW = 32  # tokens in the full-resolution window around the query
TOP_K = 3
# the views of each fold-out section (built only when named in `only`)
SECTION_VIEWS = {
    "vectors": ("emb", "positional", "sinusoids", "out"),
    "padding": ("pad0", "pad1"),
    # per encoding compared (experiments.shuffle_encodings: none, then with positions)
    "shuffle": ("shuffle_none_permuted", "shuffle_none_shuffled")
    + ("shuffle_pe_permuted", "shuffle_pe_shuffled"),
    "saturation": ("saturation",),
    "causal": ("causal_off", "causal_on"),
    "temperature": ("temperature",),
}


@dataclass(frozen=True)
class TextInput:
    """What the page runs: the text and the settings it is read with."""

    text: str
    config: TextConfig


@dataclass(frozen=True)
class TextOutcome:
    text: str
    config: TextConfig
    attention: TextAttention


def config(values: Values) -> TextInput:
    text = values["ta_text"]
    if not text.strip():
        raise SceneInputError("Type some text above: it is empty or only spaces.")
    d_model, heads = int(values["ta_d"]), int(values["ta_heads"])
    if heads not in valid_heads(d_model):
        raise SceneInputError(f"{heads} heads do not divide d_model = {d_model}.")
    cfg = TextConfig(
        values["ta_tok"],
        int(values["ta_vocab"]),
        d_model,
        heads,
        values["ta_pos"],
        values["ta_score"],
        bool(values["ta_scaled"]),
        float(values["ta_temp"]),
        bool(values["ta_causal"]),
        int(values["seed"]),
    )
    return TextInput(text, cfg)


def run(config: TextInput) -> TextOutcome:
    attention = analyse(config.text, config.config)
    if not attention.tokens:
        raise SceneInputError(
            "This text has no tokens for the word tokenizer: try the char or BPE tokenizer."
        )
    return TextOutcome(config.text, config.config, attention)


def head_and_query(out: TextOutcome, values: Values) -> tuple[int, int]:
    """The head and the query token shown, within the heads and the tokens there are."""
    heads, t = out.config.n_heads, len(out.attention.tokens)
    return min(int(values["ta_head"]), heads - 1), min(int(values["ta_query"]), t - 1)


def _heads_grid(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    return {"heads_grid": heads_grid(out.attention.weights, out.attention.tokens)}


def _query_row(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    head, query = head_and_query(out, values)
    row = out.attention.weights[head, query]  # (T,)
    return {"query_row": query_row_figure(row, out.attention.tokens, query, head)}


def _long_input(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    """Past LONG_INPUT tokens (the grid is pooled): each query's TOP_K largest weights, and the
    map at full resolution in a window around the query."""
    tokens, weights = out.attention.tokens, out.attention.weights  # weights (H, T, T)
    t = len(tokens)
    if t <= LONG_INPUT:
        return {}
    head, query = head_and_query(out, values)
    title = f"Head {head}: each query's {TOP_K} largest weights"
    lo = max(0, min(query - WINDOW // 2, t - WINDOW))
    span = (lo, lo + WINDOW)
    title_window = f"Head {head}, tokens {lo}–{lo + WINDOW - 1} around query {query}"
    return {
        "top_k": top_k_figure(weights[head], tokens, k=TOP_K, title=title),
        "window": window_figure(weights[head], tokens, span, span, title_window),
    }


def _vectors(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    att, cfg = out.attention, out.config
    figs = {"emb": vectors_map(att.embeddings, att.tokens, "Token embeddings (seeded random)")}
    if cfg.positional != "none":
        figs["positional"] = positional_figure(att.positions, rope=cfg.positional == "rope")
    if cfg.positional == "sinusoidal":
        figs["sinusoids"] = sinusoid_curves(sinusoidal(max(len(att.tokens), 64), cfg.d_model))
    title = "Outputs: one row per token, heads merged"
    return figs | {"out": vectors_map(att.outputs, att.tokens, title)}


def _padding(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    head, _ = head_and_query(out, values)
    pad_mask = bool(values["ta_padmask"])
    padded, pad_w = experiments.padded(out.text, values["ta_second"], out.config, pad_mask)
    note = "[PAD] keys get weight 0" if pad_mask else "mask off: [PAD] keys take weight"
    return {  # pad_w (2, H, T, T)
        f"pad{i}": weights_map(pad_w[i, head], toks, f"sentence {i + 1}, head {head}: {note}")
        for i, toks in enumerate(padded)
    }


def _shuffle(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    head, _ = head_and_query(out, values)
    tokens, figs = out.attention.tokens, {}
    runs = experiments.shuffles(tokens, out.config).values()
    for which, exp in zip(("none", "pe"), runs, strict=True):
        perm_tokens = [tokens[i] for i in exp["perm"]]
        for name, panel, title in (
            ("permuted", "original_permuted", "original, rows and columns permuted"),
            ("shuffled", "shuffled", "computed on the shuffled tokens"),
        ):
            map_title = f"{title} (head {head})"
            figs[f"shuffle_{which}_{name}"] = weights_map(exp[panel][head], perm_tokens, map_title)
    return figs


def _saturation(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    d_k = out.config.d_model // out.config.n_heads
    return {"saturation": saturation_figure(experiments.saturation(), d_k)}


def _causal(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    head, _ = head_and_query(out, values)
    tokens, figs = out.attention.tokens, {}
    n = min(len(tokens), PAIR_MAX)
    for flag, name in zip((False, True), SECTION_VIEWS["causal"], strict=True):
        other = dataclasses.replace(out.config, causal=flag)
        att = out.attention if flag == out.config.causal else experiments.analysis(out.text, other)
        title = f"causal mask {'on' if flag else 'off'} (head {head})"
        figs[name] = weights_map(att.weights[head, :n, :n], tokens[:n], title)
    return figs


def temperature_sweep(out: TextOutcome, values: Values) -> tuple[np.ndarray, np.ndarray]:
    """The shown query row at each of TEMPERATURES: weights (n, T) and entropies (n,)."""
    head, query = head_and_query(out, values)
    causal_query = query if out.config.causal else None
    return experiments.temperature_sweep(out.attention.scores[head, query], causal_query)


def _temperature(out: TextOutcome, values: Values) -> dict[str, go.Figure]:
    _, query = head_and_query(out, values)
    rows, _ = temperature_sweep(out, values)
    tokens = out.attention.tokens
    fig = temperature_figure(rows, list(TEMPERATURES), tokens, shown(tokens)[query])
    return {"temperature": fig}


SECTION_TOGGLES = {"shuffle": "ta_open_shuffle", "padding": "ta_open_pad"}
SECTION_BUILDS = {
    "vectors": _vectors,
    "padding": _padding,
    "shuffle": _shuffle,
    "saturation": _saturation,
    "causal": _causal,
    "temperature": _temperature,
}
VIEWS = (
    *grouped(("heads_grid",), _heads_grid, main=True),
    View("tokens", page=True),  # the page's table of tokens and ids
    *grouped(("query_row",), _query_row),
    *grouped(("top_k", "window"), _long_input),
    *(  # the fold-out sections': built only when named
        view
        for section, group in SECTION_BUILDS.items()
        for view in grouped(
            SECTION_VIEWS[section], group, section=SECTION_TOGGLES.get(section), folded=True
        )
    ),
)


def answers(out: TextOutcome, values: Values) -> dict[str, Answer]:
    """`top_token`: the token the query token weights most in the shown head; `attention_row`:
    the same head's row over every token (predict the attention)."""
    head, query = head_and_query(out, values)
    tokens = out.attention.tokens
    row = out.attention.weights[head, query]  # (T,)
    top = tokens[int(row.argmax())]
    return {"top_token": Answer.of(top, tokens), "attention_row": Answer.of_row(tokens, row)}


def head_view(result: TextOutcome, values: Values) -> dict:
    """The head view's data as the page draws it: every head, the chosen query token."""
    weights, tokens = result.attention.weights, result.attention.tokens  # (H, T, T)
    query = min(int(values["ta_query"]), len(tokens) - 1)
    return head_view_data(weights, tokens, list(range(weights.shape[0])), query)


SCENE = Scene(
    url="text",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=Memo,
    answers=answers,
    answer_names=("top_token", "attention_row"),
    problems=problems,
    head_view=head_view,
    ranges={  # the heads chosen and the text's tokens (the table's highs: the largest allowed)
        "ta_head": ("head", lambda out: out.config.n_heads),
        "ta_query": ("query token", lambda out: len(out.attention.tokens)),
    },
    ops=Operations(
        shuffle=experiments.shuffles, export_csv=attention_csv, export_json=attention_json
    ),
)
