"""Page 5: train a tiny transformer live and watch its attention form (seeds 002, 003): layout
over its scene (attnviz.topics.train_transformer.scene)."""

import streamlit as st

from attnviz.topics.train_transformer.scene import SCENE, SEQUENCE_ACCURACY, probe
from attnviz.ui.common import layout
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.widgets import draw
from attnviz.ui.parts.train_transformer import attention_by_layer, trained_tools
from attnviz.ui.training.page import TrainingPage
from attnviz.ui.training.run_view import LiveRun

TABLE = SCENE.table
TASK_NOTES = {
    "reverse": "encoder: output position i = input position T−1−i",
    "sort": "encoder: write the digits in increasing order",
    "copy": "causal decoder: digits, '|', then the same digits again",
    "modular_addition": "encoder: a + b = (a + b) mod p, scored on sums never seen in training. "
    "With small p it memorises first and generalises late (grokking); p = 47 finds the rule sooner",
    "next_char": "causal decoder: predict the next character of the bundled fables",
    "fill_blank": "encoder, self-supervised: fill in the hidden character '_'",
}


page = TrainingPage(
    SCENE,
    "Train a transformer live",
    "A tiny transformer (pre-LayerNorm blocks, multi-head self-attention, an MLP) learns a toy "
    "task in seconds on a CPU. Pick a preset, press **Start**, and watch the loss fall and the "
    "attention maps of one fixed example sharpen. Encoders see the whole sequence; causal "
    "decoders only the past.",
    ["Task", "Model"],
)
task_col, model_col = page.groups
with task_col:
    drawn = {"tt_task": draw(TABLE, "tt_task")}
    st.caption(TASK_NOTES[drawn["tt_task"]])
    drawn |= {key: draw(TABLE, key) for key in ("tt_len", "tt_sym", "tt_ntrain")}
with model_col:
    drawn |= {key: draw(TABLE, key) for key in ("tt_layers", "tt_heads", "tt_d", "tt_drop")}
    drawn["tt_pos"] = draw(TABLE, "tt_pos")
values = page.settle(drawn)
job = page.job
example = probe(job.spec.task)
st.caption(f"{example.notes} Probe example: `{' '.join(example.tokens)}`")


def accuracy(run: LiveRun) -> None:
    """The latest validation accuracy, per token and per sequence, of the run the maps show (none
    over the untrained model that settings changed since the run show)."""
    history = run.state.history if run.snapshot is not None else None
    if history is None or not history.val_metric:
        return
    seq = history.latest_extra(SEQUENCE_ACCURACY)
    per_token, per_sequence = st.columns(2)
    per_token.metric("validation accuracy, per token", f"{history.val_metric[-1]:.1%}")
    per_sequence.metric("validation accuracy, per sequence", "–" if seq is None else f"{seq:.1%}")
    st.caption(
        f"At step {history.eval_step[-1]}, on validation examples never seen in training. "
        "Per sequence: the share of examples with every scored token right."
    )


def draw_live(run: LiveRun) -> None:
    """The probe's attention maps and, once the run is paused or over, the tools; all built from
    the run's own spec (the panel gives a snapshot only when it is the page's current one)."""
    accuracy(run)
    if run.snapshot is None:
        attention_by_layer(SCENE.views(scene_run(SCENE, values), values))
        return
    maps = None if run.state.active else run.snapshot.attention  # (L, H, T, T) downloads
    attention_by_layer(SCENE.views(run.snapshot, values), maps, example.tokens)
    if run.state.active:
        return
    step = next((s for s, snap in run.state.snapshots if snap is run.snapshot), run.state.step)
    trained_tools(run.spec, run.snapshot, step)


page.panel(draw_live, problems=job.spec.model.problems())

layout.try_this(SCENE.try_this)
