"""Inside one block of a real model (issue 58): every number of one block of the bundled
SmolLM2-135M on a short prompt, step by step; layout over its scene
(attnviz.topics.real_block.scene)."""

import streamlit as st

from attnviz.topics.real_block.scene import LAST_TOKEN, MAX_TOKENS, SCENE, SECTIONS
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.view_cache import cached_views
from attnviz.ui.common.widgets import draw, preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish
from attnviz.ui.parts.language_model import prompt_run

TABLE = SCENE.table

layout.intro(
    "Inside one block of a real model",
    "One block of **SmolLM2-135M**, a 2025 decoder of the Llama family, on your prompt, every "
    "number computed from the block's weights and equal to the model's own forward pass: "
    "RMSNorm instead of LayerNorm, rotary positions (RoPE) instead of learned ones, 9 query "
    "heads sharing 3 key/value heads (grouped-query attention) and a SwiGLU MLP. The toy layer "
    "of *Self-attention, step by step* is 2017's; this is what changed since. Pick the query "
    "token: each step shows its row first; turn on **whole matrices** for every token's.",
)
text_col, side_col = st.columns([3, 2])
with side_col, st.container(horizontal=True, vertical_alignment="center"):
    with st.popover("Presets", width="stretch"):
        preset_buttons(TABLE, stacked=True)
    reset_button(TABLE)
with text_col:
    text = draw(TABLE, "rb_text", max_chars=200)
c1, c2, c3, c4 = st.columns([1.3, 1.3, 1, 1])  # one row: the weights start higher
with c1:
    layer = draw(TABLE, "rb_layer")
with c2:
    head = draw(TABLE, "rb_head")
values = SCENE.values({"rb_text": text, "rb_layer": layer, "rb_head": head})
out = prompt_run(SCENE, values, MAX_TOKENS)
with c3:
    positions = [LAST_TOKEN, *range(len(out.tokens))]  # the prompt's own positions
    values["rb_query"] = draw(TABLE, "rb_query", choices=positions)
with c4:
    values["rb_whole"] = draw(TABLE, "rb_whole")
NEXT = "rb_next"  # the last block's next token, under its own controls
publish(SCENE.answers(out, values))


def views(names: list[str]) -> None:
    """The views `names`, built (or kept: view_cache) for this block and these settings."""
    figs = cached_views(SCENE, out, values, set(names), key=(out.config,))
    for name in names:
        if name in figs:
            show(figs[name], name)


def step(section: str, say: str) -> None:
    """One folded step of the block (SECTIONS: its title; the scene: its views): built and drawn
    only while open, so that a move builds and draws the open steps only (all 12 charts took
    ~0.6 s a move in Chromium, issue 55)."""
    with layout.lazy_expander(SECTIONS[section], section) as box:
        if box.open:
            views(list(SCENE.section_views[section]))
            st.caption(say)


st.subheader("Weights first: where the query looks")
views([SCENE.main_view])
st.caption(
    "The end of the attention half, first: the softmax of the scores below. Each row sums to 1. "
    "Open the steps below one at a time to build it, number by number."
)
step(
    "rb_open_norm",
    "RMSNorm divides each token's vector by its rms and multiplies it by the learned scale γ; "
    "unlike LayerNorm it subtracts no mean and adds no bias. The bars: each token's rms before "
    "attention, before the MLP (the block's second norm) and, after the last block, the final "
    "norm's.",
)
step(
    "rb_open_qkv",
    "The query head reads one of 3 key/value heads; 3 query heads share each (grouped-query "
    "attention: the KV cache is 3× smaller).",
)
step(
    "rb_open_rope",
    "Each pair (i, i + 32) of q and of k turns by position × the pair's frequency; a score then "
    "depends on how far apart the two tokens are. A rotation keeps every length.",
)
step(
    "rb_open_scores",
    "QKᵀ/√d, the future masked to −∞ (a decoder), softmax per row, then the weights mix V.",
)
step(
    "rb_open_out",
    "The 9 heads' outputs, concatenated, go through W_O and are added to the stream; a second "
    "RMSNorm, then the SwiGLU MLP: down(SiLU(gate) ⊙ up), added too.",
)
if out.block.logits is not None:  # the last block
    st.subheader("After the last block: the next token")
    c5, c6 = st.columns(2)
    with c5:
        values["rb_temp"] = draw(TABLE, "rb_temp")
    with c6:
        values["rb_topp"] = draw(TABLE, "rb_topp")
    show(cached_views(SCENE, out, values, {NEXT}, key=(out.config,))[NEXT], NEXT)
    st.caption("The final RMSNorm and the unembedding turn the last token's stream into logits.")
layout.try_this(SCENE.try_this)
