"""Page 4: self-attention on your own sentence (seeds 002, 003)."""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.core.tokenizers import bpe_learned_size
from attnviz.figures import base as plots
from attnviz.figures.text import heads_grid, shown
from attnviz.topics.text.attention import (
    MAX_TOKENS,
    TextConfig,
    attention_csv,
    attention_json,
    valid_heads,
)
from attnviz.topics.text.params import HEAD_VIEW_HEADS, MAX_CHARS, PRONOUN_TEXT, TABLE, TRY_THIS
from attnviz.ui import layout, text_sections
from attnviz.ui.figures import show
from attnviz.ui.head_view import head_view
from attnviz.ui.lesson_answers import publish
from attnviz.ui.settings import settings
from attnviz.ui.text_sections import cached_analysis
from attnviz.ui.widgets import draw, preset_buttons, reset_button


def sync_head_pills(heads: int) -> None:
    """Every head is shown at first and again after the head count changes (a link's choice stays)."""
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
    "$W_q, W_k, W_v$): the maps show the mechanism, not learned meaning.",
)
text_col, preset_col = st.columns([4, 1], vertical_alignment="bottom")
with preset_col:  # presets in a popover, so the controls and the maps fit the first screen
    with st.popover("Presets", width="stretch"):
        preset_buttons(TABLE, per_row=1)
    reset_button(TABLE)
with text_col:
    text = draw(TABLE, "ta_text", max_chars=MAX_CHARS, height=80)
c1, c2, c3, c4 = st.columns(4)
with c1:
    tokenizer = draw(TABLE, "ta_tok")
    vocab = draw(TABLE, "ta_vocab", disabled=tokenizer != "bpe")
with c2:
    d_model = draw(TABLE, "ta_d")
    heads = draw(TABLE, "ta_heads", choices=valid_heads(d_model))
with c3:
    positional = draw(TABLE, "ta_pos")
    score_name = draw(TABLE, "ta_score")
with c4:
    scaled = draw(TABLE, "ta_scaled")
    causal = draw(TABLE, "ta_causal")
    temperature = draw(TABLE, "ta_temp")
if not text.strip():
    st.warning("Type some text above: it is empty or only spaces.")
    st.stop()
cfg = TextConfig(
    tokenizer,
    vocab,
    d_model,
    heads,
    positional,
    score_name,
    scaled,
    temperature,
    causal,
    settings().seed,
)
result = cached_analysis(text, cfg)
tokens, t = result.tokens, len(result.tokens)
if not t:
    st.warning("This text has no tokens for the word tokenizer: try the char or BPE tokenizer.")
    st.stop()
if result.truncated_from > t:
    st.warning(
        f"The text has {result.truncated_from} tokens; only the first {MAX_TOKENS} are used."
    )

text_sections.pronoun_note(text, PRONOUN_TEXT)
if t == 1:
    st.info("One token can only attend to itself: every weight is 1. Type a longer text.")
show(heads_grid(result.weights, tokens), "heads_grid")
st.caption(
    f"$d_k = {d_model}/{heads} = {d_model // heads}$ per head. Scores: dot $q^\\top k$ "
    r"(÷$\sqrt{d_k}$ when on), cosine $q^\top k/(\lVert q\rVert\,\lVert k\rVert)$, "
    r"neg_sq_dist $-\lVert q-k\rVert^2$. RoPE rotates $q$ and $k$ by their position "
    "instead of adding a vector to the embedding."
)
text_sections.bpe_note(tokens, tokenizer)
vocab_note = f" (BPE vocabulary: {bpe_learned_size(vocab)} entries)" if tokenizer == "bpe" else ""
st.markdown(f"**{t} tokens**{vocab_note}: each with its id")
token_table = pd.DataFrame({"token": tokens, "id": [str(i) for i in result.ids]})
if t <= 48:  # a row that reads like the sentence; longer texts get a column (cheap to draw)
    st.dataframe(token_table.T, width="stretch")
else:
    st.dataframe(token_table, height=240, width="content")

view_col, row_col = st.columns([3, 2])
with row_col:
    head = draw(TABLE, "ta_head", high=heads - 1) if heads > 1 else 0
    query = draw(TABLE, "ta_query", high=t - 1) if t > 1 else 0
    row = result.weights[head, query]
    publish("top_token", tokens[int(row.argmax())], tokens)  # a lesson's question asks
    title = f"Where '{shown(tokens)[query]}' looks (head {head}); the row sums to {row.sum():.3f}"
    show(
        plots.bar_chart(row, shown(tokens), title, "weight", "key token", (0, 1.1), query)
        if t <= 64
        else plots.line_chart(np.arange(t), {"weight": row}, title, "key position", "weight"),
        "query_row",
    )
    st.caption(
        f"Entropy of this row: {result.entropy[head, query]:.3f} nats, "
        r"$H = -\sum_j a_j \ln a_j$ "
        f"(uniform would be $\\ln {t} = {np.log(t):.3f}$, one-hot 0)."
    )
with view_col:
    sync_head_pills(heads)
    picked = draw(TABLE, HEAD_VIEW_HEADS, choices=list(range(heads)))
    head_view(
        result.weights,
        tokens,
        text_sections.heads_to_draw(picked, heads),
        query,
        "ta_hv",
        "ta_query",
    )
text_sections.long_input(result.weights, tokens, head, query)

text_sections.vectors(result, cfg)
text_sections.padding(text, cfg, head)
st.subheader("Experiments")
text_sections.shuffle(tokens, cfg, head)
text_sections.saturation(d_model // heads)
text_sections.causal(text, cfg, head, tokens)
text_sections.temperature(result, cfg, head, query)

layout.try_this(TRY_THIS)
left, right = st.columns(2)
left.download_button(
    "Download attention (CSV)",
    lambda: attention_csv(tokens, result.weights),
    "text_attention.csv",
    "text/csv",
    key="ta_dl_csv",
)
right.download_button(
    "Download attention (JSON)",
    lambda: attention_json(result, cfg),
    "text_attention.json",
    "application/json",
    key="ta_dl_json",
)
