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
    rollout,
)
from attnviz.topics.pretrained.model import MAX_TOKENS, load
from attnviz.ui import layout
from attnviz.ui.figures import show
from attnviz.ui.head_view import head_view

DEFAULT = "The animal didn't cross the street because it was too tired."
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


def compare_with_second_sentence(name: str, result, layer: int, head: int) -> None:
    other = st.text_input(
        "second sentence",
        "The animal didn't cross the street because it was too wide.",
        key="pe_other",
        bind="query-params",
    )
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
layout.presets(
    {
        "Pronoun": {"pe_text": DEFAULT},
        "Repetition": {"pe_text": "one two three one two three one two three"},
        "Long input": {"pe_text": " ".join(["the lecture hall was full of students"] * 70)},
    },
    key="pe_preset",
)
name = st.text_input(
    "model (empty = bundled MiniLM; or a local folder / Hub name)",
    "",
    key="pe_model",
    bind="query-params",
)
text = st.text_area("sentence", DEFAULT, key="pe_text", bind="query-params", max_chars=20_000)
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
layer = c1.slider("layer", 0, layers - 1, 0, key="pe_layer", bind="query-params")
head = c2.slider("head", 0, heads - 1, 0, key="pe_head", bind="query-params")
hide = c3.toggle("hide [CLS]/[SEP] and renormalise", key="pe_hide", bind="query-params")
tokens, att = visible_attention(result, hide)
show(cached_model_view(name.strip(), text, hide), "model_view")
view_col, big_col = st.columns(2)
with view_col:
    st.markdown(f"**Head view, layer {layer}**: queries (left) attend to keys (right)")
    every_head = st.toggle("all heads", key="pe_allheads", bind="query-params")
    layout.clamp_state("pe_query", t - 1)
    head_view(
        att[layer],
        tokens,
        list(range(heads)) if every_head else [head],
        None if hide else st.session_state.get("pe_query", 0),
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

st.subheader("Query and key behind one weight")
query = st.slider("query token", 0, t - 1, key="pe_query", bind="query-params") if t > 1 else 0
q, k = result.queries[layer, head, query], result.keys[layer, head]
st.caption(f"Query token: '{result.tokens[query]}' (computed on all {t} tokens, specials included)")
show(qk_products(q, k, result.tokens, result.tokens[query]), "qk_products")
score_fig, soft_fig = qk_bars(q, k, result.tokens)
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
method = st.radio(
    "projection",
    ["pca", "tsne"],
    horizontal=True,
    key="pe_proj",
    bind="query-params",
    help="t-SNE is slower; it runs only when chosen.",
)
points = project_queries_keys(result.queries[layer, head], result.keys[layer, head], method)
show(qk_scatter(points, result.tokens, method), "qk_scatter")

with layout.lazy_expander("Compare with a second sentence", "pe_open_compare") as compare:
    if compare.open:  # built only while open
        compare_with_second_sentence(name.strip(), result, layer, head)

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
        "Find a head in layers 0–1 whose lines all go one token back: the table labels it *previous token*.",
        "Turn on *hide [CLS]/[SEP]*: many heads that looked empty were parking their attention on [SEP].",
        "Compare 'too tired' with 'too wide': which heads change what 'it' attends to?",
        "Press **Long input**: 512 tokens still draw; the model view block-averages them.",
    ]
)
