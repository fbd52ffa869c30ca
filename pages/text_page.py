"""Page 4: self-attention on your own sentence (seeds 002, 003): layout over its scene
(attnviz.topics.text.scene)."""

import numpy as np
import streamlit as st

from attnviz.core.tokenizers import bpe_learned_size
from attnviz.topics.scene import SceneInputError
from attnviz.topics.text.scene import (
    HEAD_VIEW_HEADS,
    MAX_CHARS,
    MAX_TOKENS,
    PRONOUN_TEXT,
    SCENE,
    valid_heads,
)
from attnviz.ui.common import here, layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.head_view import head_view
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.settings import settings
from attnviz.ui.common.widgets import draw, preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish
from attnviz.ui.parts import text as parts

TABLE = SCENE.table


def sync_head_pills(heads: int) -> None:
    """Every head is shown at first and after the head count changes (a link's choice stays)."""
    previous, st.session_state["_ta_hv_n"] = st.session_state.get("_ta_hv_n"), heads
    fresh = HEAD_VIEW_HEADS not in st.session_state and HEAD_VIEW_HEADS not in st.query_params
    if fresh or previous not in (None, heads):
        st.session_state[HEAD_VIEW_HEADS] = list(range(heads))


layout.intro(
    "Attention on text",
    "Type a sentence. Its **tokens** become vectors (seeded random **embeddings** plus "
    "**positions**); in each **head** every query $q = xW_q + b_q$ meets every key: "
    r"$A = \operatorname{softmax}(QK^\top/\sqrt{d_k})$, row by row, and the rows mix the values "
    "$V$. Each row says where a token looks. The layer is **untrained** (seeded random "
    "$W_q$, $W_k$, $W_v$): the maps show the mechanism, not learned meaning.",
)
text_col, preset_col = st.columns([4, 1], vertical_alignment="bottom")
with preset_col:  # presets in a popover, so the controls and the maps fit the first screen
    with st.popover("Presets", width="stretch"):
        preset_buttons(TABLE, stacked=True)
    reset_button(TABLE)
with text_col:
    values = {"ta_text": draw(TABLE, "ta_text", max_chars=MAX_CHARS, height=80)}
maps = layout.view_first_on_a_laptop()  # the maps under the sentence, then the settings
c1, c2, c3, c4 = st.columns(4)
with c1:
    values["ta_tok"] = draw(TABLE, "ta_tok")
    values["ta_vocab"] = draw(TABLE, "ta_vocab", disabled=values["ta_tok"] != "bpe")
with c2:
    values["ta_d"] = draw(TABLE, "ta_d")
    values["ta_heads"] = heads = draw(TABLE, "ta_heads", choices=valid_heads(values["ta_d"]))
with c3:
    values |= {key: draw(TABLE, key) for key in ("ta_pos", "ta_score")}
with c4:
    values |= {key: draw(TABLE, key) for key in ("ta_scaled", "ta_causal", "ta_temp")}
values = SCENE.values(values, seed=settings().seed)
with maps():
    try:
        out = scene_run(SCENE, values)
    except SceneInputError as err:
        st.warning(str(err))
        st.stop()
    tokens, t = out.attention.tokens, len(out.attention.tokens)
    if out.attention.truncated_from > t:
        told = out.attention.truncated_from
        st.warning(f"The text has {told} tokens; only the first {MAX_TOKENS} are used.")

    parts.pronoun_note(values["ta_text"], PRONOUN_TEXT)
    if t == 1:
        st.info("One token can only attend to itself: every weight is 1. Type a longer text.")
    show(SCENE.views(out, values, only={"heads_grid"})["heads_grid"], "heads_grid")
    st.caption(
        "Each map: rows are query tokens (named left of a row's first map), columns key tokens. "
        f"$d_k = {values['ta_d']}/{heads} = {values['ta_d'] // heads}$ per head. Scores: dot "
        r"$q^\top k$ (÷$\sqrt{d_k}$ when on), cosine $q^\top k/(\lVert q\rVert\,\lVert k\rVert)$, "
        r"neg_sq_dist $-\lVert q-k\rVert^2$. RoPE rotates $q$ and $k$ by their position "
        "instead of adding a vector to the embedding."
    )
parts.bpe_note(tokens, values["ta_tok"])
bpe = values["ta_tok"] == "bpe"
vocab_note = f" (BPE vocabulary: {bpe_learned_size(values['ta_vocab'])} entries)" if bpe else ""
with here.view_place("tokens"):  # a lesson step may name it
    heading = f"**{t} tokens**{vocab_note}: each with its id"
    parts.token_table(tokens, out.attention.ids, heading, "tokens", settings().font_scale != 1.0)

view_col, row_col = st.columns([3, 2])
with row_col:
    values["ta_head"] = head = draw(TABLE, "ta_head", high=heads - 1) if heads > 1 else 0
    values["ta_query"] = query = draw(TABLE, "ta_query", high=t - 1) if t > 1 else 0
    publish(SCENE.answers(out, values))  # a lesson's question asks
    figs = SCENE.views(out, values, only={"query_row"})
    show(figs["query_row"], "query_row")
    st.caption(
        f"Entropy of this row: {out.attention.entropy[head, query]:.3f} nats, "
        r"$H = -\sum_j a_j \ln a_j$ "
        f"(uniform would be $\\ln {t} = {np.log(t):.3f}$, one-hot 0)."
    )
with view_col:
    sync_head_pills(heads)
    picked = draw(TABLE, HEAD_VIEW_HEADS, choices=list(range(heads)))
    shown_heads = parts.heads_to_draw(picked, heads)
    head_view(out.attention.weights, tokens, shown_heads, query, "ta_hv", "ta_query")
parts.long_input(out, values, head)

parts.vectors(out, values)
parts.padding(out, values)
st.subheader("Experiments")
parts.shuffle(out, values)
parts.saturation(out, values)
parts.causal(out, values)
parts.temperature(out, values)

layout.try_this(SCENE.try_this)
left, right = st.columns(2)
left.download_button(
    "Download attention (CSV)",
    lambda: SCENE.ops.export_csv(tokens, out.attention.weights),
    "text_attention.csv",
    "text/csv",
    key="ta_dl_csv",
    on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
)
right.download_button(
    "Download attention (JSON)",
    lambda: SCENE.ops.export_json(out.attention, out.config),
    "text_attention.json",
    "application/json",
    key="ta_dl_json",
    on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
)
