"""Page 4: self-attention on your own sentence (seeds 002, 003)."""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.core.positional import ENCODINGS
from attnviz.core.tokenizers import KINDS, bpe_learned_size
from attnviz.figures import base as plots
from attnviz.figures.text import heads_grid, shown
from attnviz.topics.text.attention import (
    MAX_TOKENS,
    SCORES,
    TextConfig,
    attention_csv,
    attention_json,
    valid_heads,
)
from attnviz.ui import layout, text_sections
from attnviz.ui.figures import show
from attnviz.ui.head_view import head_view
from attnviz.ui.sidebar import settings
from attnviz.ui.text_sections import TEMPERATURES, cached_analysis

DEFAULT = "a large airplane flying in the blue sky"
PRESETS = {
    "Captioning (seed 002)": DEFAULT,
    "Pronoun puzzle": "the trophy did not fit in the suitcase because it was too big",
    "Repeated pattern": "one two three one two three one two three",
}
D_MODELS = [8, 16, 24, 32, 48, 64]
MAX_CHARS = 20_000


def sync_head_pills(heads: int) -> None:
    """Every head is shown at first and again after the head count changes (a link's choice stays)."""
    previous, st.session_state["_ta_hv_n"] = st.session_state.get("_ta_hv_n"), heads
    fresh = "ta_hv_heads" not in st.session_state and "ta_hv_heads" not in st.query_params
    if fresh or previous not in (None, heads):
        st.session_state["ta_hv_heads"] = list(range(heads))


layout.intro(
    "Attention on text",
    "Type a sentence. It is cut into **tokens**, each token becomes a vector (a seeded random "
    "**embedding** plus a **positional encoding**), and in each **head** every token's query "
    "q = xW_q + b_q is compared with every token's key: softmax(QKᵀ/√d_k) row by row, then the "
    "rows mix the values V. Each row says where that token looks.",
)
layout.presets({name: {"ta_text": text} for name, text in PRESETS.items()}, key="ta_preset")
text = st.text_area(
    "Your text", DEFAULT, key="ta_text", bind="query-params", max_chars=MAX_CHARS, height=80
)
c1, c2, c3, c4 = st.columns(4)
tokenizer = c1.radio("tokenizer", KINDS, key="ta_tok", bind="query-params", horizontal=True)
vocab = c1.slider(
    "BPE vocabulary size",
    260,
    800,
    400,
    20,
    key="ta_vocab",
    bind="query-params",
    disabled=tokenizer != "bpe",
)
d_model = c2.select_slider("d_model", D_MODELS, value=32, key="ta_d", bind="query-params")
heads = c2.select_slider(
    "heads (d_k = d_model / heads)",
    valid_heads(d_model),
    value=4,
    key="ta_heads",
    bind="query-params",
)
positional = c3.selectbox("positional encoding", ENCODINGS, key="ta_pos", bind="query-params")
score_name = c3.selectbox("score a(q, k)", SCORES, key="ta_score", bind="query-params")
scaled = c4.toggle("divide by √d_k", True, key="ta_scaled", bind="query-params")
causal = c4.toggle("causal mask", key="ta_causal", bind="query-params")
temperature = c4.select_slider(
    "temperature", TEMPERATURES, value=1.0, key="ta_temp", bind="query-params"
)
st.caption(
    f"d_k = {d_model}/{heads} = {d_model // heads} per head. Scores: dot qᵀk (÷√d_k when on), "
    "cosine qᵀk/(‖q‖‖k‖), neg_sq_dist −‖q−k‖². RoPE rotates q and k by their position "
    "instead of adding a vector to the embedding."
)
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

vocab_note = f" (BPE vocabulary: {bpe_learned_size(vocab)} entries)" if tokenizer == "bpe" else ""
st.markdown(f"**{t} tokens**{vocab_note}: each with its id")
token_table = pd.DataFrame({"token": tokens, "id": [str(i) for i in result.ids]})
if t <= 48:  # a row that reads like the sentence; longer texts get a column (cheap to draw)
    st.dataframe(token_table.T, width="stretch")
else:
    st.dataframe(token_table, height=240, width="content")
if t == 1:
    st.info("One token can only attend to itself: every weight is 1. Type a longer text.")
show(heads_grid(result.weights, tokens), "heads_grid")

view_col, row_col = st.columns([3, 2])
with row_col:
    layout.clamp_state("ta_head", heads - 1)
    layout.clamp_state("ta_query", t - 1)
    head = st.slider("head", 0, heads - 1, key="ta_head", bind="query-params") if heads > 1 else 0
    query = st.slider("query token", 0, t - 1, key="ta_query", bind="query-params") if t > 1 else 0
    row = result.weights[head, query]
    title = f"Where '{shown(tokens)[query]}' looks (head {head}); the row sums to {row.sum():.3f}"
    show(
        plots.bar_chart(row, shown(tokens), title, "weight", "key token", (0, 1.1), query)
        if t <= 64
        else plots.line_chart(np.arange(t), {"weight": row}, title, "key position", "weight"),
        "query_row",
    )
    st.caption(
        f"Entropy of this row: {result.entropy[head, query]:.3f} nats "
        f"(uniform would be {np.log(t):.3f}, one-hot 0)."
    )
with view_col:
    sync_head_pills(heads)
    picked = st.pills(
        "heads in the head view",
        list(range(heads)),
        selection_mode="multi",
        key="ta_hv_heads",
        bind="query-params",
    )
    head_view(result.weights, tokens, picked or [], query, "ta_hv", "ta_query")

text_sections.vectors(result, cfg)
text_sections.padding(text, cfg, head)
st.subheader("Experiments")
text_sections.shuffle(tokens, cfg, head)
text_sections.saturation(d_model // heads)
text_sections.causal(text, cfg, head, tokens)
text_sections.temperature(result, cfg, head, query)

layout.try_this(
    [
        "Set positional encoding to *none* and open (a): shuffled words give the same attention, permuted.",
        "Turn off *divide by √d_k* with 1 head and d_model 64: rows become nearly one-hot.",
        "Press **Repeated pattern** and look for a head that attends to the same word one period back.",
        "Temperature 0.05 vs 10: sharp vs uniform rows (watch the entropy under the bar chart).",
    ]
)
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
