"""The "Inside a language model" page's parts that need Streamlit: the model's first load with
its progress, the decoding controls, and the folded sections (generation, logit lens, every head
labelled, attention sinks), each built only while open; a click on the head map's cell opens
that cell's score taken apart."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attnviz.figures.clickable import cell_of
from attnviz.figures.pretrained import token_map
from attnviz.figures.text import shown
from attnviz.io.user_text import md_literal
from attnviz.topics.language_model.scene import (
    AUTO,
    KIND_NAMES,
    KINDS,
    SCENE,
    LlmOutcome,
    ModelMissing,
    blank_future,
    decoding,
    labels,
    model_for,
)
from attnviz.topics.scene import Scene, SceneInputError, Values
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.view_cache import cached_views
from attnviz.ui.common.widgets import draw
from attnviz.ui.lecture.answers import publish

TABLE = SCENE.table


def views(out: LlmOutcome, values: Values, names: set[str]) -> dict:
    """The views `names` on this result, each remembered with the settings it read
    (attnviz.ui.common.view_cache): a move no view reads rebuilds no figure."""
    return cached_views(SCENE, out, values, names, key=(out.config, id(model_for(out.config))))


def load_with_progress(device: str) -> bool:
    """Load the bundled model once per server, its stages shown while it loads (the first start
    converts it: 10–30 s); False, with the reason shown, when it is not installed."""
    if SCENE.ops.is_loaded(device):
        return True
    place = st.empty()  # the progress goes once the model is there
    try:
        with place.status("Loading SmolLM2-135M (once per server)…", expanded=True) as status:
            SCENE.ops.load(device, progress=status.write)
    except ModelMissing as err:
        place.error(str(err))
        return False
    place.empty()
    return True


def model_run(scene: Scene, values: Values, source: str = ""):
    """The scene's result on the bundled model (loaded first, `load_with_progress`) or on the
    researcher's own (`source`, loaded by the run); the page stops with the reason when the
    model is missing or the input is not usable (shown as written: a reason may quote what the
    user typed)."""
    if not source.strip() and not load_with_progress(values["device"]):
        st.stop()
    try:
        if not source.strip():
            return scene_run(scene, values)
        with st.spinner("Reading your model (its first load takes a while)…", show_time=True):
            return scene_run(scene, values)
    except SceneInputError as err:
        st.warning(md_literal(err))
        st.stop()


def model_said(source: str) -> str:
    """ "Model: `folder`. " for the researcher's own model (as typed, never a link), else ""."""
    return f"Model: {md_literal(source)}. " if source else ""


def prompt_run(scene: Scene, values: Values, max_tokens: int, source: str = ""):
    """`model_run` on a prompt (of the model `source`: "" the bundled one), saying so when the
    prompt was cut to `max_tokens` tokens."""
    out = model_run(scene, values, source)
    if out.cut:
        st.warning(f"The prompt has more than {max_tokens} tokens: the page reads the first ones.")
    return out


def decoding_controls() -> dict:
    """Greedy, or sampling with its settings (drawn only when sampling)."""
    values = {"lm_sample": draw(TABLE, "lm_sample")}
    for key in ("lm_temp", "lm_topk", "lm_topp", "lm_seed"):
        values[key] = draw(TABLE, key) if values["lm_sample"] else TABLE[key].default
    return values


def generation_section(out: LlmOutcome, values: Values) -> None:
    with layout.lazy_expander("Generation, token by token", "lm_open_gen") as box:
        values["lm_new"] = draw(TABLE, "lm_new")
        if not box.open:
            return
        gen = SCENE.ops.generate(
            model_for(out.config), out.fwd.ids, int(values["lm_new"]), decoding(values)
        )
        values["lm_gen_step"] = draw(TABLE, "lm_gen_step", high=gen.n_new) if gen.n_new > 1 else 1
        figs = views(out, values, {"lm_generation", "lm_gen_step_bars"})
        show(figs["lm_generation"], "lm_generation")
        step = min(int(values["lm_gen_step"]), gen.n_new)
        how = "sampled" if values["lm_sample"] else "greedy"
        ended = f" (the model ended its turn after {gen.n_new} tokens)" if gen.ended else ""
        st.caption(f"Generated ({how}){ended}: {md_literal(gen.text)}")
        st.metric(f"KV cache length at step {step}", f"{gen.cache_lengths[step - 1]} tokens")
        show(figs["lm_gen_step_bars"], "lm_gen_step_bars")


def lens_section(out: LlmOutcome, values: Values) -> None:
    with layout.lazy_expander("Logit lens: the prediction after each layer", "lm_open_lens") as box:
        if not box.open:
            return
        st.markdown(
            "Each layer's output goes through the model's final norm and its unembedding, as "
            "the last layer's does: the top token after each layer, shaded by its probability "
            "(the hover lists the top 5). The last row is the model's own prediction."
        )
        figs = views(out, values, {"lm_lens", "lm_lens_last"})
        show(figs["lm_lens"], "lm_lens")
        show(figs["lm_lens_last"], "lm_lens_last")


def heads_section(out: LlmOutcome, values: Values) -> None:
    with layout.lazy_expander("Every head labelled", "lm_open_heads") as box:
        values["lm_kind"] = draw(TABLE, "lm_kind")
        if not box.open:
            return
        lm = model_for(out.config)
        scores = SCENE.ops.score_heads(lm)
        st.markdown(
            "Scored on a random sequence of tokens repeated twice (after the BOS token), as "
            "interpretability work measures heads: each score is the mean weight a head puts "
            "where that kind of head looks. Pick a row to see that head on your prompt."
        )
        show(views(out, values, {"lm_scores"})["lm_scores"], "lm_scores")
        table = head_table(scores)
        event = st.dataframe(
            table,
            hide_index=True,
            height=300,
            on_select="rerun",
            selection_mode="single-row",
            key="lm_head_table",
        )
        rows = event.selection.rows if event is not None else []
        if rows:
            layer, head = int(table.iloc[rows[0]]["layer"]), int(table.iloc[rows[0]]["head"])
            weights = blank_future(out.fwd.attentions[layer, head])
            title = f"Layer {layer}, head {head} on your prompt"
            show(token_map(weights, shown(out.fwd.tokens), title), "lm_picked_head")


def head_table(scores: dict) -> pd.DataFrame:
    """One row per head: layer, head, its key/value group, label and scores (sortable)."""
    layers, heads = scores[KINDS[0]].shape
    named = labels(scores)
    rows = [
        {"layer": layer, "head": head, "label": named[layer, head]}
        | {KIND_NAMES[k]: round(float(scores[k][layer, head]), 3) for k in KINDS}
        for layer in range(layers)
        for head in range(heads)
    ]
    return pd.DataFrame(rows)


def sinks_section(out: LlmOutcome, values: Values) -> None:
    with layout.lazy_expander("Attention sinks: the first token", "lm_open_sinks") as box:
        if not box.open:
            return
        figs = views(out, values, {"lm_sinks_map", "lm_sinks_lines"})
        show(figs["lm_sinks_map"], "lm_sinks_map")
        show(figs["lm_sinks_lines"], "lm_sinks_lines")
        st.caption(
            "A head with nothing useful to look at must still put its whole weight somewhere: "
            "many park it on the first token, whatever that token is. Compare the two lines: "
            "without a BOS token in front, the prompt's own first token becomes the sink. "
            "With **what flows, not the weight** on (above the head map), the map shows each "
            "head's share of what it moves that comes from the first token: a sink's large "
            "weight often moves little."
        )


WHY_NOTE = (
    "The score of one cell, $q_i \\cdot k_j/\\sqrt{d}$ before the softmax, as a sum of parts. The "
    "residual stream at a position is the sum of what wrote it: the token's embedding, every "
    "earlier head's output, every earlier MLP. With each position's RMSNorm division kept at "
    "this run's, the query and the key are sums of those components' parts (rotary positions "
    "applied exactly), so the score is a sum over (query component, key component) pairs. Rows: "
    "what built the query; columns: what built the key; the 7 that add most, the rest summed. "
    "The cells sum to the score in the title."
)


def why_section(out: LlmOutcome, values: Values) -> None:
    """The chosen head's score at one cell taken apart: the query, the key and a key to compare
    with (each left to the page by default), the matrix of parts and its sentence."""
    title = "Why does this head look there? One cell's score taken apart"
    with layout.lazy_expander(title, "lm_open_why") as box:
        names = shown(out.fwd.tokens)
        positions = [AUTO, *range(len(names))]
        for column, (key, auto) in zip(st.columns(3), WHY_SETTINGS, strict=True):
            with column:  # drawn while folded too: a link's choice is kept (as lm_kind)
                values[key] = draw(
                    TABLE, key, choices=positions, format_func=_position_label(names, auto)
                )
        if not box.open:
            return
        values["lm_open_why"] = True
        publish(SCENE.answers(out, values))  # with the cell chosen: `why_key` for a lesson
        st.markdown(WHY_NOTE)
        figure = views(out, values, {"lm_why"}).get("lm_why")  # None: the model's score
        if figure is not None:  # does not split (its sentence says why)
            show(figure, "lm_why")
        st.caption(md_literal(SCENE.ops.explain_cell(out, values)))


HEAD_CHART = "lm_head_chart"  # the head map's chart: its selection is the clicked cell


def pick_why_cell() -> None:
    """on_select of the head map: a click on a cell (query row, key column; not a blank future
    cell) opens "Why does this head look there?" on that cell."""
    chart = st.session_state.get(HEAD_CHART) or {}
    cell = cell_of((chart.get("selection") or {}).get("points") or [])
    if cell is not None and cell[1] <= cell[0]:  # not the blank future (key after query)
        st.session_state["lm_why_query"], st.session_state["lm_why_key"] = cell
        st.session_state["lm_open_why"] = True


WHY_SETTINGS = (
    ("lm_why_query", "the last token"),
    ("lm_why_key", "the one it weights most after the first"),
    ("lm_why_versus", "none"),
)


def _position_label(names: list[str], auto: str):
    def label(position: int) -> str:  # a stale position (a longer prompt's) is its number
        if position == AUTO:
            return auto
        return f"{position}: {names[position]}" if position < len(names) else str(position)

    return label
