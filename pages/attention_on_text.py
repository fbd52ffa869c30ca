"""Page 4: self-attention on your own sentence (seeds 002, 003)."""

import dataclasses

import numpy as np
import pandas as pd
import streamlit as st

from attnviz import plots
from attnviz.plots_text import (
    HEAD_VIEW_MAX,
    head_view,
    heads_grid,
    positional_figure,
    saturation_figure,
    shown,
    sinusoid_curves,
)
from attnviz.positional import ENCODINGS
from attnviz.text_attention import (
    MAX_TOKENS,
    SCORES,
    TextConfig,
    analyse,
    padded_batch,
    permutation_experiment,
    saturation_curve,
)
from attnviz.tokenizers import KINDS
from attnviz.ui import downloads, layout
from attnviz.ui.figures import show
from attnviz.ui.sidebar import settings

DEFAULT = "a large airplane flying in the blue sky"
PRESETS = {
    "Captioning (seed 002)": DEFAULT,
    "Pronoun puzzle": "the trophy did not fit in the suitcase because it was too big",
    "Repeated pattern": "one two three one two three one two three",
}
TEMPERATURES = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
MAX_CHARS = 20_000


@st.cache_data(max_entries=64, show_spinner=False)
def cached_analysis(text: str, cfg: TextConfig):
    return analyse(text, cfg)


@st.cache_data(max_entries=4, show_spinner=False)
def cached_saturation():
    return saturation_curve([2, 4, 8, 16, 32, 64, 128, 256, 512])


def focus_clicked_token() -> None:
    points = st.session_state["ta_headview"].selection.get("points", [])
    if points and "customdata" in points[0]:
        st.session_state["ta_query"] = int(points[0]["customdata"])


layout.intro(
    "Attention on text",
    "Type a sentence. It is cut into **tokens**, each token becomes a vector (a seeded random "
    "**embedding** plus a **positional encoding**), and every token's query is compared with every "
    "token's key in each **head**: softmax(QKᵀ/√d_k) row by row. Each row says where that token looks.",
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
    1000,
    400,
    20,
    key="ta_vocab",
    bind="query-params",
    disabled=tokenizer != "bpe",
)
d_model = c2.select_slider("d_model", [8, 16, 32, 64], value=32, key="ta_d", bind="query-params")
heads = c2.select_slider(
    "heads (d_k = d_model / heads)",
    [h for h in (1, 2, 4, 8) if d_model % h == 0],
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

if not text.strip():
    st.warning("Type some text above (it is empty or only spaces).")
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
t = len(result.tokens)
if result.truncated_from > t:
    st.warning(
        f"The text has {result.truncated_from} tokens; only the first {MAX_TOKENS} are shown."
    )

st.markdown(f"**{t} tokens** (id under each token)")
st.dataframe(
    pd.DataFrame([result.ids], columns=shown(result.tokens), index=["id"]), width="stretch"
)

if st.session_state.get("ta_head", 0) > heads - 1:
    st.session_state["ta_head"] = 0
head = st.slider("head to inspect", 0, heads - 1, key="ta_head") if heads > 1 else 0
head = min(head, heads - 1)
show(heads_grid(result.weights, result.tokens), "heads_grid")

view_col, row_col = st.columns([3, 2])
with view_col:
    picked = st.pills(
        "heads in the head view",
        list(range(heads)),
        default=list(range(heads)),
        selection_mode="multi",
        key="ta_hv_heads",
    )
    if t > HEAD_VIEW_MAX:
        st.info(
            f"The head view shows the first {HEAD_VIEW_MAX} of {t} tokens; the heatmaps show all of them."
        )
    if st.session_state.get("ta_query", 0) > t - 1:
        st.session_state["ta_query"] = 0
    query = st.session_state.get("ta_query", 0)
    isolate = st.toggle("only the selected query token's lines", key="ta_isolate")
    show(
        head_view(result.weights, result.tokens, picked or [], query if isolate else None),
        "head_view",
        key="ta_headview",
        on_select=focus_clicked_token,
        selection_mode="points",
    )
with row_col:
    query = (
        st.slider("query token", 0, max(t - 1, 1), key="ta_query", disabled=t == 1) if t > 1 else 0
    )
    query = min(query, t - 1)
    row = result.weights[head, query]
    show(
        plots.bar_chart(
            row,
            shown(result.tokens),
            f"Where '{shown(result.tokens)[query]}' looks (head {head}); sums to {row.sum():.3f}",
            "weight",
            y_range=(0, 1.1),
        )
        if t <= 64
        else plots.line_chart(np.arange(t), {"weight": row}, "Query row", "key position", "weight"),
        "query_row",
    )
    st.caption(
        f"Entropy of this row: {result.entropy[head, query]:.3f} nats (uniform would be {np.log(t):.3f})"
    )

with st.expander("Embeddings, positions and outputs"):
    show(positional_figure(result.positions), "positional")
    if positional == "sinusoidal":
        show(
            sinusoid_curves(
                result.positions
                if t > 8
                else np.asarray(cached_analysis(" ".join(["x"] * 64), cfg).positions)
            ),
            "sinusoids",
        )
    show(
        plots.heatmap(
            result.outputs,
            y_labels=shown(result.tokens),
            title="Outputs: one row per token (all heads merged)",
            x_title="dimension",
            y_title="token",
            colorscale="RdBu_r",
        ),
        "outputs",
    )

st.subheader("Experiments")
with st.expander("(a) Why positional encodings? Shuffle the words"):
    for pe in ("none", positional if positional != "none" else "sinusoidal"):
        exp = permutation_experiment(result.tokens[:64], dataclasses.replace(cfg, positional=pe))
        st.markdown(
            f"**positional = {pe}**: max |attention(shuffled) − P·attention·Pᵀ| = `{exp['max_difference']:.2e}`"
        )
        labels = shown([result.tokens[i] for i in exp["perm"]])
        panels = (
            ("original_permuted", "original, rows/columns permuted"),
            ("shuffled", "computed on the shuffled sentence"),
        )
        for col, (name, title) in zip(st.columns(2), panels, strict=True):
            with col:
                show(
                    plots.heatmap(exp[name][head], labels, labels, title=title, zmin=0, zmax=1),
                    f"perm_{name}_{pe}",
                )
    st.info(
        "Without positions the two maps are identical: self-attention is permutation-equivariant. With positions they differ."
    )
with st.expander("(b) Why divide by √d_k? Softmax saturation"):
    show(saturation_figure(cached_saturation()), "saturation")
    st.caption(
        "Unscaled, q·k grows like √d_k, the softmax saturates towards one-hot and its entropy falls; scaled, it stays level."
    )
with st.expander("(c) Causal mask and (d) padding mask"):
    other = st.text_input(
        "second sentence (batched with the first, padded)",
        "the cat sat",
        key="ta_second",
        bind="query-params",
    )
    padded, pad_w = padded_batch(text, other or " ", cfg)
    for i, toks in enumerate(padded):
        show(
            plots.heatmap(
                pad_w[i, head],
                shown(toks),
                shown(toks),
                title=f"sentence {i + 1}: [PAD] columns get weight 0",
                zmin=0,
                zmax=1,
            ),
            f"pad_{i}",
        )
    st.caption("Turn the causal mask on above: every weight above the diagonal becomes exactly 0.")

layout.try_this(
    [
        "Set positional encoding to *none* and open experiment (a): shuffled words give the same attention, permuted.",
        "Turn off *divide by √d_k* with 1 head and d_model 64: rows become nearly one-hot.",
        "Press **Repeated pattern** and look for a head that attends to the same word one period back.",
        "Temperature 0.05 vs 10: sharp vs uniform rows (watch the entropy under the bar chart).",
    ]
)
downloads.matrices(
    {f"head {h}": result.weights[h] for h in range(heads)}, "text_attention", key="ta_dl"
)
