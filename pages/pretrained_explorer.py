"""Page 7: look inside a real pretrained model (the bundled MiniLM, or any local/Hub model)."""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.figures import base as plots
from attnviz.figures.pretrained import model_view, qk_bars, qk_products, qk_scatter
from attnviz.figures.text import shown
from attnviz.io.export import array_to_npy
from attnviz.topics.pretrained.analysis import (
    difference,
    drop_tokens,
    head_table,
    project_queries_keys,
    query_row,
    rollout,
)
from attnviz.topics.pretrained.model import MAX_TOKENS, load
from attnviz.ui import layout
from attnviz.ui.figures import show
from attnviz.ui.head_view import head_view
from attnviz.ui.params.pretrained import TABLE
from attnviz.ui.params.widgets import draw, preset_buttons, reset_button

SPECIALS = {"[CLS]", "[SEP]", "<s>", "</s>", "[PAD]"}


@st.cache_resource(show_spinner="Loading the model (once per server)…", max_entries=3)
def shared_model(name: str):
    return load(name or None)


@st.cache_data(max_entries=32, show_spinner=False)
def attend(name: str, text: str):
    return shared_model(name).attend(text, MAX_TOKENS)


def visible_attention(result, hide: bool) -> tuple[list[str], np.ndarray]:
    """Tokens and attentions (L, H, T, T), without [CLS]/[SEP] (rows renormalised) if `hide`."""
    keep = np.array([tok not in SPECIALS for tok in result.tokens])
    if not hide or not keep.any():
        return result.tokens, result.attentions
    return [t for t, k in zip(result.tokens, keep, strict=True) if k], drop_tokens(
        result.attentions, keep
    )


@st.cache_resource(max_entries=8, show_spinner=False)
def cached_model_view(name: str, text: str, hide: bool):
    """The model view does not depend on the layer/head sliders: build its 72-subplot figure once
    per input (~50 ms) and share it read-only (ui.figures.show copies before scaling fonts)."""
    tokens, att = visible_attention(attend(name, text), hide)
    return model_view(att, tokens)


def compare_with_second_sentence(name: str, other: str, result, layer: int, head: int) -> None:
    if not other.strip():
        return
    second = attend(name, other)
    diff = difference(result.attentions[layer, head], second.attentions[layer, head])
    labels = shown(result.tokens[: diff.shape[0]])
    title = "First − second (common leading tokens)"
    show(plots.heatmap(diff, labels, labels, title, colorscale="RdBu_r", zmin=-1, zmax=1), "diff")


layout.intro(
    "Pretrained model explorer",
    "A real sentence-embedding model, **all-MiniLM-L6-v2** (6 layers × 12 heads), ships with AttnViz "
    "and runs offline. Type a sentence and look at every head: the model view, one head's lines, the "
    "queries and keys behind one weight, attention rollout across layers, and what each head does.",
)
preset_buttons(TABLE)
reset_button(TABLE)
name = draw(TABLE, "pe_model")
text = draw(TABLE, "pe_text", max_chars=20_000)
if not text.strip():
    st.warning("Type a sentence above (it is empty).")
    st.stop()
try:
    result = attend(name.strip(), text)
except ValueError as err:
    st.error(f"{err}. Leave the model box empty for the bundled MiniLM.")
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
st.caption(f"Query token: '{result.tokens[query]}' (computed on all {t} tokens, specials included)")
show(qk_products(q, k, result.tokens, result.tokens[query]), "qk_products")
score_fig, soft_fig = qk_bars(*query_row(q, k), result.tokens)
a, b = st.columns(2)
with a:
    show(score_fig, "qk_scores")
with b:
    show(soft_fig, "qk_softmax")

st.subheader("Across layers and heads")
a, b = st.columns(2)
with a:
    show(
        plots.heatmap(
            rollout(att),
            shown(tokens),
            shown(tokens),
            title="Attention rollout through all layers",
            zmin=0,
        ),
        "rollout",
    )
with b:
    st.dataframe(pd.DataFrame(head_table(att)), hide_index=True, height=420)

st.subheader("Queries and keys together (in the spirit of AttentionViz)")
method = draw(TABLE, "pe_proj")
points = project_queries_keys(result.queries[layer, head], result.keys[layer, head], method)
show(qk_scatter(points, result.tokens, method), "qk_scatter")

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
layout.try_this(
    [
        "Press **Pronoun coreference**: in layer 3, head 1, 'it' puts ≈ 0.68 of its weight on "
        "'animal' and ≈ 0.05 on 'street'.",
        "Press **Previous-token heads**: every line of layer 0, head 2 goes one token back; the table "
        "labels it *previous token*. Find the other one in layer 1.",
        "Turn on *hide [CLS]/[SEP]*: many heads that looked empty were parking their attention on [SEP].",
        "Compare 'too tired' with 'too wide': which heads change what 'it' attends to?",
        "Press **Rollout on a long sentence**: ~500 tokens still draw; the model view block-averages "
        "them, and rollout shows what each token draws on after all six layers.",
    ]
)
