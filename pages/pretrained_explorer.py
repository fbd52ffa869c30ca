"""Page 7: look inside a real pretrained model (the bundled MiniLM, or any local/Hub model)."""

import pandas as pd
import streamlit as st

from attnviz.figures import base as plots
from attnviz.figures.pretrained import qk_bars, qk_products, qk_scatter
from attnviz.figures.text import shown
from attnviz.io.export import array_to_npy
from attnviz.topics.pretrained.analysis import (
    query_row,
    top_token,
    visible_part,
)
from attnviz.topics.pretrained.model import MAX_TOKENS
from attnviz.topics.pretrained.params import TABLE, TRY_THIS
from attnviz.ui import downloads, layout
from attnviz.ui.figures import show
from attnviz.ui.head_view import head_view
from attnviz.ui.lesson_answers import publish
from attnviz.ui.pretrained_views import (
    attend,
    cached_head_table,
    cached_model_view,
    cached_projection,
    cached_rollout,
    compare_with_second_sentence,
    shown_positions,
    visible_attention,
)
from attnviz.ui.text_sections import md_literal
from attnviz.ui.widgets import draw, preset_buttons, reset_button

layout.intro(
    "Pretrained model explorer",
    "A real sentence-embedding model, **all-MiniLM-L6-v2** (6 layers × 12 heads), ships with "
    "AttnViz and runs offline. Type a sentence and look at every head: the model view, one "
    "head's lines, the queries and keys behind one weight, rollout, and what each head does.",
)
text_col, preset_col = st.columns([4, 1], vertical_alignment="bottom")
with preset_col:  # presets in a popover, so the controls and the model view fit the first screen
    with st.popover("Presets", width="stretch"):
        preset_buttons(TABLE, per_row=1)
    reset_button(TABLE)
with text_col:
    text = draw(TABLE, "pe_text", max_chars=20_000, height=80)
with st.expander("Model: the bundled MiniLM, or another one"):
    name = draw(TABLE, "pe_model")
    st.caption(
        "A local folder (BERT-like, or GPT-2-like) or a Hub name already in the local Hugging "
        "Face cache; nothing is downloaded."
    )
if not text.strip():
    st.warning("Type a sentence above (it is empty).")
    st.stop()
try:
    result = attend(name.strip(), text)
except ValueError as err:
    st.error(md_literal(str(err)) + ". Leave the model box empty for the bundled MiniLM.")
    st.stop()
if result.truncated:
    st.warning(
        f"The input has {result.n_input_tokens} tokens; the model reads at most {MAX_TOKENS}, so it was truncated."
    )

layers, heads, t = result.attentions.shape[0], result.attentions.shape[1], len(result.tokens)
c1, c2, c3 = st.columns(3)
with c1:
    layer = draw(TABLE, "pe_layer", high=layers - 1)
with c2:
    head = draw(TABLE, "pe_head", high=heads - 1)
with c3:
    hide = draw(TABLE, "pe_hide")
tokens, att = visible_attention(result, hide)
show(cached_model_view(name.strip(), text, hide), "model_view")
view_col, big_col = st.columns(2)  # filled below, once the query slider has given its value

st.subheader("Query and key behind one weight")
query = draw(TABLE, "pe_query", high=t - 1) if t > 1 else 0
with view_col:
    st.markdown(f"**Head view, layer {layer}**: queries (left) attend to keys (right)")
    every_head = draw(TABLE, "pe_allheads")
    head_view(
        att[layer],
        tokens,
        list(range(heads)) if every_head else [head],
        None if hide else query,
        "pe_hv",
        None if hide else "pe_query",  # hidden specials shift the indices: no click-to-pick
    )
with big_col:
    show(
        plots.heatmap(
            att[layer, head],
            shown(tokens),
            shown(tokens),
            title=f"Layer {layer}, head {head}",
            zmin=0,
            zmax=1,
        ),
        "pe_head_map",
    )
q, k = result.queries[layer, head, query], result.keys[layer, head]
keep = shown_positions(result.tokens, hide)  # a lesson's question asks which token it picks
publish("top_token", *top_token(result.tokens, result.attentions[layer, head, query], keep))
st.caption(
    f"Query token: '{md_literal(result.tokens[query])}' (computed on all {t} tokens, specials included)"
)
show(qk_products(q, k, result.tokens, result.tokens[query]), "qk_products")
st.markdown(
    r"Each row sums to a score $q\cdot k_j = \sum_i q_i k_{j,i}$; the weights are "
    r"$a_j = \operatorname{softmax}_j(q\cdot k_j/\sqrt{d_{\text{head}}})$, the model's row."
)
scores, weights = query_row(q, k)
score_fig, soft_fig = qk_bars(scores, weights, result.tokens)
a, b = st.columns(2)
with a:
    show(score_fig, "qk_scores")
with b:
    show(soft_fig, "qk_softmax")
downloads.matrices(
    {
        "q * k (rows: keys, columns: head dimensions)": q[None, :] * k,
        "q.k / sqrt(d)": scores,
        "softmax weights": weights,
    },  # fmt: skip
    "query_key_products",
    "pe_dl_qk",
    labels={
        "q * k (rows: keys, columns: head dimensions)": (
            result.tokens,
            [f"dim {i}" for i in range(k.shape[1])],
        ),
        "q.k / sqrt(d)": (["query"], result.tokens),
        "softmax weights": (["query"], result.tokens),
    },
)

st.subheader("Across layers and heads")
a, b = st.columns(2)
with a:
    rolled = visible_part(cached_rollout(name.strip(), text), shown_positions(result.tokens, hide))
    title = "Attention rollout, all layers" + (" (specials hidden)" if hide else "")
    show(plots.heatmap(rolled, shown(tokens), shown(tokens), title=title, zmin=0), "rollout")
    st.markdown(
        r"$\hat A_l = \tfrac12\,\overline{A}_l + \tfrac12 I$ (mean over heads, rows "
        r"renormalised), rollout $= \hat A_L \cdots \hat A_1$ (Abnar & Zuidema, 2020), on "
        "the full maps"
        + (
            ". Hiding [CLS]/[SEP] only removes their rows and columns from the picture: a row "
            "sums to the share that reached the visible tokens."
            if hide
            else "."
        )
    )
    downloads.matrices(
        {"rollout": rolled},
        "rollout",
        "pe_dl_rollout",
        labels={"rollout": (shown(tokens), shown(tokens))},
    )
with b:
    numbers = {
        c: st.column_config.NumberColumn(format="%.3f") for c in ("entropy", "mean distance")
    }
    heads = cached_head_table(name.strip(), text, hide)
    st.dataframe(heads, hide_index=True, height=420, column_config=numbers)

st.subheader("Queries and keys together (in the spirit of AttentionViz)")
method = draw(TABLE, "pe_proj")
points = cached_projection(name.strip(), text, layer, head, method)  # (2T, 2), queries first
show(qk_scatter(points, result.tokens, method), "qk_scatter")
downloads.matrices(
    {f"{method} of queries (rows 0..T-1) then keys (rows T..2T-1), columns x, y": points},
    f"projection_{method}",
    "pe_dl_proj",
    labels={
        f"{method} of queries (rows 0..T-1) then keys (rows T..2T-1), columns x, y": (
            [f"query {t}" for t in result.tokens] + [f"key {t}" for t in result.tokens],
            ["x", "y"],
        )
    },
)

with layout.lazy_expander("Compare with a second sentence", "pe_open_compare") as compare:
    other = draw(TABLE, "pe_other")  # drawn even while closed, so the link keeps it
    if compare.open:  # the comparison is built only while open
        compare_with_second_sentence(name.strip(), other, result, layer, head)

d1, d2 = st.columns(2)  # files are built only when a button is clicked
d1.download_button(
    "Download all attentions (.npy, layers × heads × T × T)",
    lambda: array_to_npy(result.attentions),
    "attentions.npy",
    key="pe_npy",
)
d2.download_button(
    "Download this head (.csv)",
    lambda: pd.DataFrame(att[layer, head], index=tokens, columns=tokens).to_csv(),
    "head.csv",
    key="pe_csv",
)
layout.try_this(TRY_THIS)
