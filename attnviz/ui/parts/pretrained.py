"""The pretrained explorer's Streamlit side beyond its storyboard: a model typed in the model box
is loaded once per server (st.cache_resource, handed to the scene as its loader; the bundled
MiniLM is loaded once per process by the scene itself and warmed at server start); the pieces that
cost more than a slider move are kept per server by the settings they read (the model view, the
head table, the query–key projection); the comparison section; and, for a causal language model,
the generation section (each generated token's attention over time, kept per server by model,
prompt and length). Rollout with the head table, and the query–key projection, are sections
built only while open (their keys are in the page's table, so a link or a lesson opens them)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from attnviz.figures.generation import generation_map, step_bars
from attnviz.figures.pretrained import free_margins
from attnviz.io.user_text import md_literal
from attnviz.topics.pretrained import scene
from attnviz.topics.pretrained.scene import (
    SCENE,
    Generation,
    PretrainedModel,
    PretrainedOutcome,
    QueryKey,
    blank_future,
    difference_of,
    step_rows,
    visible_rollout,
)
from attnviz.topics.scene import Values
from attnviz.ui.common import downloads
from attnviz.ui.common.figures import show
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.settings import settings
from attnviz.ui.common.widgets import draw

INPUT = ("pe_model", "pe_text")  # what the scene's config reads
# the sections built only while open (layout.lazy_expander); their keys are the table's, so a
# link, a preset or a lesson step can open them
OPEN_LAYERS, OPEN_PROJECTION = "pe_open_layers", "pe_open_proj"
LAYERS_LABEL = "Across layers and heads: rollout, what each head does"  # a lesson names its start
PROJECTION_LABEL = "Queries and keys together (in the spirit of AttentionViz)"


@st.cache_resource(show_spinner="Loading the model (once per server)…", max_entries=3)
def shared_model(name: str) -> PretrainedModel:
    return SCENE.ops.load(name)


scene.use_loader(shared_model)


def _key(values: Values, keys: Sequence[str]) -> tuple:
    """The settings a cached piece depends on: the input and `keys`."""
    return tuple(values[k] for k in (*INPUT, *keys))


@st.cache_resource(max_entries=8, show_spinner=False)
def _model_view(key: tuple, _out: PretrainedOutcome, _values: Values) -> go.Figure:
    return SCENE.views(_out, _values, only={SCENE.main_view})[SCENE.main_view]  # the model view


def cached_model_view(out: PretrainedOutcome, values: Values) -> go.Figure:
    """The model view does not depend on the layer/head sliders: build its 72-subplot figure once
    per input (~50 ms) and share it read-only (ui.figures.show copies before scaling fonts)."""
    return _model_view(_key(values, ("pe_hide",)), out, values)


@st.cache_data(max_entries=16, show_spinner=False)
def _head_table(key: tuple, _out: PretrainedOutcome, _values: Values) -> pd.DataFrame:
    return scene.head_rows(_out, _values)


def cached_head_table(out: PretrainedOutcome, values: Values) -> pd.DataFrame:
    """What each head does: computed once per input, not on every layer/head move."""
    return _head_table(_key(values, ("pe_hide",)), out, values)


@st.cache_data(max_entries=32, show_spinner="Projecting queries and keys (t-SNE takes seconds)…")
def _projection(key: tuple, _out: PretrainedOutcome, _values: Values) -> np.ndarray:
    return scene.projection(_out, _values)


def cached_projection(out: PretrainedOutcome, values: Values) -> np.ndarray:
    """(2T, 2) joint projection of one head's queries and keys, computed once per input."""
    return _projection(_key(values, ("pe_layer", "pe_head", "pe_proj")), out, values)


def sized(fig: go.Figure) -> go.Figure:
    """`fig` as built, or in lecture mode a copy with Plotly's automargin back on: a long
    input's maps and bars come with margins computed for the base font (settle_margins)."""
    return fig if settings().font_scale == 1.0 else free_margins(fig)


def across_layers_and_heads(out: PretrainedOutcome, values: Values) -> None:
    """Rollout over all layers (with its note and file) beside the table of what each head does."""
    a, b = st.columns(2)
    with a:
        show(sized(SCENE.views(out, values, only={"rollout"})["rollout"]), "rollout")
        rollout_note(out, values)
    with b:
        numbers = {
            c: st.column_config.NumberColumn(format="%.3f") for c in ("entropy", "mean distance")
        }
        table = cached_head_table(out, values)
        st.dataframe(table, hide_index=True, height=420, column_config=numbers)


def queries_and_keys_together(out: PretrainedOutcome, values: Values) -> None:
    """The chosen head's queries and keys projected together (PCA or t-SNE), and their file."""
    points = cached_projection(out, values)  # (2T, 2), queries first
    scatter = SCENE.views(out, values, only={"qk_scatter"}, points=points)["qk_scatter"]
    show(scatter, "qk_scatter")
    projection_download(points, out.attended.tokens, values["pe_proj"])


def compare_with_second_sentence(out: PretrainedOutcome, values: Values) -> None:
    """The chosen head on the first sentence minus on the second (nothing while it is empty)."""
    if not values["pe_other"].strip():
        return
    second = scene_run(SCENE, {**values, "pe_text": values["pe_other"]})
    show(sized(SCENE.views(out, values, only={"diff"}, second=second)["diff"]), "diff")
    st.caption(
        "Position i of both sentences; where their tokens differ the label shows both "
        "(first|second). Red: the first sentence puts more weight there."
    )
    labels, diff = difference_of(out, second, values)
    downloads.matrices(
        {"first minus second": diff},
        "attention_difference",
        "pe_dl_diff",
        labels={"first minus second": (labels, labels)},
    )


def query_key_download(qk: QueryKey, tokens: list[str]) -> None:
    """The query–key view's numbers as files: q ∘ k per key, the scores and the weights."""
    products = "q * k (rows: keys, columns: head dimensions)"
    downloads.matrices(
        {products: qk.q[None, :] * qk.k, "q.k / sqrt(d)": qk.scores, "softmax weights": qk.weights},
        "query_key_products",
        "pe_dl_qk",
        labels={
            products: (tokens, [f"dim {i}" for i in range(qk.k.shape[1])]),
            "q.k / sqrt(d)": (["query"], tokens),
            "softmax weights": (["query"], tokens),
        },
    )


def rollout_note(out: PretrainedOutcome, values: Values) -> None:
    """Under the rollout map: its definition, what hiding the specials does, and its file."""
    st.markdown(
        r"$\hat A_l = \tfrac12\,\overline{A}_l + \tfrac12 I$ (mean over heads, rows "
        r"renormalised), rollout $= \hat A_L \cdots \hat A_1$ (Abnar & Zuidema, 2020), on "
        "the full maps"
        + (
            ". Hiding [CLS]/[SEP] only removes their rows and columns from the picture: a row "
            "sums to the share that reached the visible tokens."
            if values["pe_hide"]
            else "."
        )
    )
    labels, rolled = visible_rollout(out, values)
    downloads.matrices(
        {"rollout": rolled}, "rollout", "pe_dl_rollout", labels={"rollout": (labels, labels)}
    )


def projection_download(points: np.ndarray, tokens: list[str], method: str) -> None:
    """The projected queries and keys (2T, 2) as a file."""
    projected = f"{method} of queries (rows 0..T-1) then keys (rows T..2T-1), columns x, y"
    rows = [f"query {tok}" for tok in tokens] + [f"key {tok}" for tok in tokens]
    downloads.matrices(
        {projected: points},
        f"projection_{method}",
        "pe_dl_proj",
        labels={projected: (rows, ["x", "y"])},
    )


@st.cache_data(max_entries=16, show_spinner="Generating, one token at a time…")
def cached_generation(model: str, text: str, n_new: int) -> Generation:
    """Greedy generation of `n_new` tokens after `text`, once per (model, prompt, length)."""
    return SCENE.ops.generate(scene.model_for(model), text, n_new)


def generation_section(values: Values) -> None:
    """For a causal LM: N new tokens, the map of their attention over time (the layer slider's
    layer; the chosen head or the mean over heads), a step slider, that step's row and the KV
    cache's length at each step."""
    table = SCENE.table
    st.subheader("Generation: each new token's attention, step by step")
    a, b = st.columns(2)
    with a:
        n_new = draw(table, "pe_gen_n")
    with b:
        mean = draw(table, "pe_gen_mean")
    try:
        gen = cached_generation(values["pe_model"], values["pe_text"], n_new)
    except ValueError as err:  # an empty prompt and the like: the reason, quoted
        st.warning(f"Cannot generate: {md_literal(str(err))}")
        return
    step = draw(table, "pe_gen_step", high=gen.n_new) if gen.n_new > 1 else 1
    layer, head = values["pe_layer"], None if mean else values["pe_head"]
    which = "mean over heads" if head is None else f"head {head}"
    rows = blank_future(step_rows(gen, layer, head))  # (N, P + N), the future blank
    title = f"Generated tokens' attention, layer {layer}, {which}"
    show(generation_map(rows, gen.tokens, gen.n_prompt, step, title), "generation_map")
    st.caption(
        f"Generated (greedy): {md_literal(gen.text)}" + (" (prompt cut)" if gen.prompt_cut else "")
    )
    st.metric(f"KV cache length at step {step}", f"{gen.cache_lengths[step - 1]} tokens")
    st.caption(
        f"= the {gen.n_prompt} prompt tokens + {step} generated: the new token is the only "
        "query, and the cache holds the keys and values of every token so far."
    )
    show(step_bars(rows[step - 1], gen.tokens, gen.n_prompt, step), "generation_step")
    steps = pd.DataFrame(
        {
            "step": range(1, gen.n_new + 1),
            "token": gen.tokens[gen.n_prompt :],
            "KV cache length": gen.cache_lengths,
        }
    )
    st.dataframe(steps, hide_index=True, height=min(36 * gen.n_new + 40, 320))
