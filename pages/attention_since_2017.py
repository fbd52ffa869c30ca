"""Attention since 2017 (issue 44): grouped-query, multi-query, latent, window + sink, gated and
differential attention trained side by side with 2017's multi-head attention, and the KV cache
of real models; layout over its scene (attnviz.topics.attention_since_2017.scene)."""

import streamlit as st

from attnviz.topics.attention_since_2017.scene import SCENE, readable_bytes, so_far
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.plain_table import plain_table
from attnviz.ui.common.widgets import draw
from attnviz.ui.lecture.answers import publish
from attnviz.ui.training.page import TrainingPage
from attnviz.ui.training.run_view import LiveRun

TABLE = SCENE.table
LIVE = ("sv_progress", "sv_first", "sv_maps", "sv_cache")
NOTE = (
    "Measured here (seed 0, 400 steps, benchmarks/attention_variants.py): every variant learns "
    "to copy (95 %–100 % of tokens, multi-query 92 %). No strong sink forms in a model this "
    "small: softmax's first token keeps about 0.10 of the attention, below an even spread "
    "(0.16); gated attention keeps less (0.08), and the learned sink column and differential "
    "attention less still. Qwen's gated attention cut it from 46.7 % to 4.8 % in a 15B model."
)

page = TrainingPage(
    SCENE,
    "Attention since 2017",
    "The attention inside 2025 models is not 2017's. **Grouped-query** attention shares each "
    "key/value head among several query heads (SmolLM2: 9 query heads, 3 key/value heads), "
    "**multi-query** shares one among all, DeepSeek's **latent** attention caches one small "
    "latent and up-projects keys and values from it, gpt-oss adds a learned **sink** logit per "
    "head and a sliding **window** on every other layer, Qwen's **gated** attention multiplies "
    "each head's output by a sigmoid gate σ(xW_g), and **differential** attention subtracts two "
    "softmax maps, A₁ − λA₂. Here each one is trained side by side with multi-head attention: "
    "same task, same seed, same batches, same steps. Below, the KV cache of real models.",
    ["Variants", "Shown"],
)
variants_col, shown_col = page.groups
with variants_col:
    drawn = {key: draw(TABLE, key) for key in ("sv_variants", "sv_task", "sv_latent", "sv_window")}
with shown_col:
    drawn |= {key: draw(TABLE, key) for key in ("sv_layer", "sv_head")}
values = page.settle(drawn)
untrained = page.untrained()  # step 0


def draw_live(run: LiveRun) -> None:
    """The variants' views at the shown step (the untrained models' before a run)."""
    if run.snapshot is None:  # the panel says so above: "… the untrained model"
        result = untrained
    else:
        result = so_far(run.state.history, run.state.snapshots, run.step)
    figures = SCENE.views(result, values, only=LIVE)
    for name in LIVE:
        show(figures[name], name, key=f"{name}_chart")
    st.info(NOTE, icon=":material/science:")


page.panel(draw_live, problems=page.job.train.problems(), curves_last=True)

st.subheader("The KV cache of real models")
st.markdown(
    "Decoding keeps every earlier token's keys and values: the **KV cache**. Its size per token "
    "is read from each model's published config (bf16, 2 bytes a number); the grey bar is the "
    "same layers as multi-head attention, every query head with its own keys and values."
)
context = draw(TABLE, "sv_context")
calc = {**values, "sv_context": context}
publish(SCENE.answers(untrained, calc))  # a lesson's question asks a cache's saving
show(SCENE.views(untrained, calc, only=("sv_real",))["sv_real"], "sv_real", key="sv_real_chart")
plain_table(
    [
        {
            "model": row.name,
            "how it saves": row.kind,
            "per token": readable_bytes(row.per_token),
            f"at {context:,} tokens": readable_bytes(row.total),
            "as multi-head": readable_bytes(row.mha_total),
            "smaller": f"{row.times_smaller:.1f}×",
        }
        for row in SCENE.ops.cache_table(context)
    ]
)

layout.try_this(SCENE.try_this)
