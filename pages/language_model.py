"""Inside a language model: a real decoder LLM (the bundled SmolLM2-135M, offline), layout over
its scene (attnviz.topics.language_model.scene)."""

import streamlit as st

from attnviz.figures.clickable import is_clickable
from attnviz.io.user_text import md_literal
from attnviz.topics.language_model.scene import MAX_TOKENS, SCENE, decoding, model
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.widgets import draw, preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish
from attnviz.ui.parts.language_model import (
    HEAD_CHART,
    decoding_controls,
    generation_section,
    heads_section,
    lens_section,
    model_said,
    pick_why_cell,
    prompt_run,
    sinks_section,
    views,
    why_section,
)

TABLE = SCENE.table

layout.intro(
    "Inside a language model",
    "**SmolLM2-135M-Instruct**, a real decoder LLM (Llama architecture: 30 layers, 9 query heads "
    "sharing 3 key/value heads, rotary positions), ships with AttnViz and runs offline; *Your own "
    "model* under the prompt opens another from a folder. Type a prompt: its next token, every "
    "head's attention, the logit lens, which heads copy, and where attention goes when there is "
    "nothing to look at. Greedy by default, so the same prompt always gives the same answer.",
)
text_col, side_col = st.columns([3, 2])  # the prompt and its options side by side, so that
with side_col:  # the next token's chart starts on a projector's first screen
    with st.container(horizontal=True, vertical_alignment="center"):  # and on a laptop's
        with st.popover("Presets", width="stretch"):
            preset_buttons(TABLE, stacked=True)
        reset_button(TABLE)
    chat = draw(TABLE, "lm_chat")
    bos = draw(TABLE, "lm_bos", disabled=chat)
    with st.expander("How the next token is chosen"):
        decoding_values = decoding_controls()
with text_col:
    text = draw(TABLE, "lm_text", max_chars=4_000, height=120)
    with st.expander("Your own model"):
        source = draw(TABLE, "lm_model", max_chars=1_000)
chosen = {"lm_text": text, "lm_chat": chat, "lm_bos": bos, "lm_model": source}
values = SCENE.values(chosen | decoding_values)
out = prompt_run(SCENE, values, MAX_TOKENS, values["lm_model"])

lm = model(values["device"], values["lm_model"])
top = SCENE.ops.predict(lm, out.fwd, decoding(values))
show(views(out, values, {"lm_next"})["lm_next"], "lm_next")
how = "sampled" if values["lm_sample"] else "greedy: the most likely"
st.caption(
    f"{model_said(out.config.source)}Chosen ({how}): {md_literal(top.chosen)}. "
    f"Tokens: {len(out.fwd.ids)}. Tokens are written as the model reads them: ␣ is a space "
    "(␣Paris is “ Paris”), ⏎ a line break, and a token seen again carries its count (the·1)."
)
publish(SCENE.answers(out, values))

st.subheader("Every head of one layer, grouped by the keys and values it reads")
c1, c2 = st.columns(2)
with c1:
    values["lm_layer"] = draw(TABLE, "lm_layer", high=lm.n_layers - 1)
with c2:
    values["lm_head"] = draw(TABLE, "lm_head", high=lm.n_heads - 1)
grid = st.container()  # the layer's heads, filled below: the toggle is read first
values["lm_flow"] = draw(TABLE, "lm_flow")  # it changes the head map under it, not the grid
if values["lm_flow"]:  # with the toggle read: `flow_first_share` for a lesson's question
    publish(SCENE.answers(out, values))
figs = views(out, values, {"lm_gqa", "lm_head_map", "lm_writes", "lm_kv"})
with grid:
    show(figs["lm_gqa"], "lm_gqa")
show(
    figs["lm_head_map"],
    "lm_head_map",
    key=HEAD_CHART,
    selection_mode="points",
    on_select=pick_why_cell,
)
if is_clickable(figs["lm_head_map"]):  # (a long prompt's map is not: one marker a cell)
    st.caption("Click a cell to see why the head looks there: its score taken apart, just below.")
if "lm_writes" in figs:  # what flows: what the head writes, read as the next token's logits
    show(figs["lm_writes"], "lm_writes")
elif values["lm_flow"] and (problem := SCENE.ops.direct_problem(lm)) is not None:
    st.caption(f"What the head writes is not shown for this model: {problem}.")
why_section(out, values)  # why it looks where it looks: one cell's score taken apart
st.markdown(SCENE.ops.say_kv_bytes(lm))
show(figs["lm_kv"], "lm_kv")

generation_section(out, values)
lens_section(out, values)
heads_section(out, values)
sinks_section(out, values)
layout.try_this(SCENE.try_this)
