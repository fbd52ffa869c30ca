"""Page: attention at scale (issue 30): why attention costs T² and how long-context models avoid
it: masks for long inputs, linear attention, FlashAttention's tiles, the KV cache, and the cost
measured here. Layout over its scene (attnviz.topics.attention_at_scale.scene)."""

import streamlit as st

from attnviz.topics.attention_at_scale.scene import (
    DEFAULT_TEXT,
    MAIN_SPAN,
    MAX_CHARS,
    MAX_TOKENS,
    SCENE,
    token_count,
)
from attnviz.topics.scene import SceneInputError
from attnviz.ui.common import layout
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.settings import settings
from attnviz.ui.common.widgets import draw, preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish
from attnviz.ui.parts import attention_at_scale as parts

TABLE = SCENE.table

layout.intro(
    "Attention at scale",
    "Every token scores every other: $T$ tokens cost $T^2$ scores a head and a layer, in time "
    "and in memory. Long-context models cut that cost: **masks** keep a window of scores "
    "(Longformer's sliding window, dilated window, global + local tokens), **linear attention** "
    r"swaps $e^{q\cdot k}$ for $\varphi(q)\cdot\varphi(k)$ and sums once, **FlashAttention** "
    "computes the same softmax tile by tile without writing the $T \\times T$ matrix, and the "
    "**KV cache** keeps each token's keys and values while decoding. **Cost** times them here.",
)
# the part and its settings beside the part's main figure, which starts under the title and
# fits a laptop's first screen (the mask of the default 18 tokens: 553 px, figures/scale.py)
controls, stage = st.columns([1 - MAIN_SPAN, MAIN_SPAN], gap="medium")
with controls:
    with st.container(horizontal=True, vertical_alignment="center"):  # presets in a popover
        with st.popover("Presets"):
            preset_buttons(TABLE, stacked=True)
        reset_button(TABLE)
    part = draw(TABLE, "sc_part")
    values = {"sc_part": part}
    if part in ("Masks", "Linear attention"):
        values["sc_text"] = draw(TABLE, "sc_text", max_chars=MAX_CHARS)
    values |= parts.controls(part, token_count(values.get("sc_text", DEFAULT_TEXT)))
glob = settings()
values = SCENE.values(values, seed=glob.seed, device=glob.device)
try:
    out = scene_run(SCENE, values)
except SceneInputError as err:
    st.warning(str(err))
    st.stop()
publish(SCENE.answers(out, values))  # a lesson's question asks how many scores, how far back
figs = SCENE.views(out, values)
if out.truncated_from > len(out.tokens):
    st.warning(f"The text has {out.truncated_from} tokens; the first {MAX_TOKENS} are used.")

with stage:  # the part's main figure beside its controls
    if part == "Masks":
        parts.masks_main(figs)
    elif part == "Linear attention":
        parts.linear_main(out, figs)
    elif part == "FlashAttention":
        parts.flash_main(values, figs)
    elif part == "KV cache":
        parts.kv_main(values, figs)
    else:
        parts.cost_main(figs)
if part == "Masks":  # then the rest of the part, full width
    parts.masks_more(figs)
elif part == "Linear attention":
    parts.linear_more(figs)
elif part == "FlashAttention":
    parts.flash_more(figs)
elif part == "KV cache":
    parts.kv_more(figs)
else:
    parts.cost_timing(glob.device)

layout.try_this(SCENE.try_this)
