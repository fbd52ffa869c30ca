"""Page 7: look inside a real pretrained model (the bundled MiniLM, or any local/Hub model):
layout over its scene (attnviz.topics.pretrained.scene)."""

import pandas as pd
import streamlit as st

from attnviz.io.export import array_to_npy
from attnviz.io.user_text import md_literal
from attnviz.topics.pretrained.scene import (
    CAUSAL_NOTE,
    LEAVE_EMPTY,
    MAX_TOKENS,
    SCENE,
    ModelError,
    head_view_input,
    query_key,
)
from attnviz.topics.scene import SceneInputError
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.head_view import head_view
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.widgets import draw, preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish
from attnviz.ui.parts.pretrained import (
    LAYERS_LABEL,
    OPEN_LAYERS,
    OPEN_PROJECTION,
    PROJECTION_LABEL,
    across_layers_and_heads,
    cached_model_view,
    compare_with_second_sentence,
    generation_section,
    queries_and_keys_together,
    query_key_download,
    sized,
)

TABLE = SCENE.table

layout.intro(
    "Pretrained model explorer",
    "A real sentence-embedding model, **all-MiniLM-L6-v2** (6 layers × 12 heads), ships with "
    "AttnViz and runs offline. Type a sentence and look at every head: the model view, one "
    "head's lines, the queries and keys behind one weight, rollout, and what each head does.",
)
text_col, preset_col = st.columns([4, 1], vertical_alignment="bottom")
with preset_col:  # presets in a popover, so the controls and the model view fit the first screen
    with st.popover("Presets", width="stretch"):
        preset_buttons(TABLE, stacked=True)
    reset_button(TABLE)
with text_col:
    values = {"pe_text": draw(TABLE, "pe_text", max_chars=20_000, height=68)}
with st.expander("Model: the bundled MiniLM, or another one"):
    values["pe_model"] = draw(TABLE, "pe_model")
    st.caption(
        "A model folder (BERT-like, or GPT-2-like) inside a folder the server allows (the "
        "bundled model's, or one listed in `ATTNVIZ_MODEL_DIRS`), or a Hub name already in the "
        "local Hugging Face cache; nothing is downloaded."
    )
values = SCENE.values(values)
try:
    out = scene_run(SCENE, values)
except ModelError as err:
    st.error(err.reason + ". " + LEAVE_EMPTY)  # user text in it is quoted as code spans
    st.stop()
except SceneInputError as err:
    st.warning(str(err))
    st.stop()
tokens, t = out.attended.tokens, len(out.attended.tokens)
if out.attended.truncated:
    st.warning(
        f"The input has {out.attended.n_input_tokens} tokens; the model reads at most "
        f"{MAX_TOKENS}, so it was truncated."
    )

if out.attended.causal:
    st.info(CAUSAL_NOTE)
layers, heads = out.attended.attentions.shape[:2]
# on a laptop the model view under the sentence, the layer and head sliders under it (over the
# head view and the head map they pick)
model_box = layout.view_first_on_a_laptop()
c1, c2, c3 = st.columns(3)
with c1:
    values["pe_layer"] = layer = draw(TABLE, "pe_layer", high=layers - 1)
with c2:
    values["pe_head"] = head = draw(TABLE, "pe_head", high=heads - 1)
with c3:
    values["pe_hide"] = draw(TABLE, "pe_hide")
with model_box():
    show(cached_model_view(out, values), "model_view")
view_col, big_col = st.columns(2)  # filled below, once the query slider has given its value

st.subheader("Query and key behind one weight")
values["pe_query"] = draw(TABLE, "pe_query", high=t - 1) if t > 1 else 0
with view_col:
    st.markdown(f"**Head view, layer {layer}**: queries (left) attend to keys (right)")
    values["pe_allheads"] = draw(TABLE, "pe_allheads")
    hv = head_view_input(out, values)
    click = None if hv.query is None else "pe_query"  # hidden specials shift the indices
    head_view(hv.weights, hv.tokens, hv.heads, hv.query, "pe_hv", click)
with big_col:  # it changes the head map under it
    values["pe_flow"] = draw(TABLE, "pe_flow")
figs = SCENE.views(out, values, only={"pe_head_map", "qk_products", "qk_scores", "qk_softmax"})
figs = {name: sized(fig) for name, fig in figs.items()}  # lecture mode: Plotly's own margins
with big_col:
    show(figs["pe_head_map"], "pe_head_map")
    if out.attended.value_norms is None and values["pe_flow"]:
        st.caption("This model's value and output projections are not known here: weights.")
publish(SCENE.answers(out, values))  # a lesson's question asks which token it picks
qk = query_key(out, values)
st.caption(
    f"Query token: '{md_literal(tokens[qk.query])}' (computed on all {t} tokens, specials included)"
)
show(figs["qk_products"], "qk_products")
st.markdown(
    r"Each cell is one elementwise product $q_i k_{j,i}$ (column $i$: a dimension of the "
    r"head); each row sums to a score $q\cdot k_j = \sum_i q_i k_{j,i}$; the weights are "
    r"$a_j = \operatorname{softmax}_j(q\cdot k_j/\sqrt{d_{\text{head}}})$, the model's row."
)
a, b = st.columns(2)
with a:
    show(figs["qk_scores"], "qk_scores")
with b:
    show(figs["qk_softmax"], "qk_softmax")
query_key_download(qk, tokens)

# built only while open: a new 512-token sentence sends ~0.45 MB and costs ~0.5 s CPU less
with layout.lazy_expander(LAYERS_LABEL, OPEN_LAYERS) as box:
    if box.open:
        across_layers_and_heads(out, values)

if out.attended.causal:  # a decoder-only model: generate, and watch each new token's attention
    generation_section(values)

with layout.lazy_expander(PROJECTION_LABEL, OPEN_PROJECTION) as box:
    values["pe_proj"] = draw(TABLE, "pe_proj")  # drawn even while closed, so the link keeps it
    if box.open:
        queries_and_keys_together(out, values)

with layout.lazy_expander("Compare with a second sentence", "pe_open_compare") as compare:
    values["pe_other"] = draw(TABLE, "pe_other")  # drawn even while closed, so the link keeps it
    if compare.open:  # the comparison is built only while open
        compare_with_second_sentence(out, values)

d1, d2 = st.columns(2)  # files are built only when a button is clicked
d1.download_button(
    "Download all attentions (.npy, layers × heads × T × T)",
    lambda: array_to_npy(out.attended.attentions),
    "attentions.npy",
    key="pe_npy",
    on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
)
d2.download_button(
    "Download this head (.csv)",
    lambda: pd.DataFrame(hv.weights[head], index=hv.tokens, columns=hv.tokens).to_csv(),
    "head.csv",
    key="pe_csv",
    on_click="ignore",  # no rerun: one raced the file's fetch (a stuck button)
)
layout.try_this(SCENE.try_this)
