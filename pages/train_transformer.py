"""Page 5: train a tiny transformer live and watch its attention form (seeds 002, 003)."""

import dataclasses

import streamlit as st

from attnviz.data.tasks import TASK_NAMES, TaskSpec, build_task
from attnviz.models.transformer import POSITIONAL, TransformerConfig
from attnviz.topics.transformer.task import PRESETS, TransformerJobSpec, restore
from attnviz.training.trainer import BATCH_MODES, OPTIMIZERS, SCHEDULES, TrainConfig
from attnviz.ui import layout
from attnviz.ui.sidebar import settings
from attnviz.ui.training_panel import LiveRun, training_panel
from attnviz.ui.transformer_tools import (
    ablation,
    attention_by_layer,
    generate_text,
    save_and_load,
    try_input,
)

RATES = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 1.0, 10.0]
TASK_NOTES = {
    "reverse": "encoder: output position i = input position T−1−i",
    "sort": "encoder: write the digits in increasing order",
    "copy": "causal decoder: digits, '|', then the same digits again",
    "modular_addition": "encoder: a + b = (a + b) mod p, scored on sums never seen in training. "
    "With small p it memorises first and generalises late (grokking); p = 47 finds the rule sooner",
    "next_char": "causal decoder: predict the next character of a song",
    "fill_blank": "encoder, self-supervised: fill in the hidden character '_'",
}


def preset_values(task: TaskSpec, model: TransformerConfig, train: TrainConfig) -> dict:
    return {
        "tt_task": task.name,
        "tt_len": task.length,
        "tt_sym": task.n_symbols,
        "tt_layers": model.n_layer,
        "tt_heads": model.n_head,
        "tt_d": model.d_model,
        "tt_opt": train.optimizer,
        "tt_lr": train.lr,
        "tt_bs": train.batch_size,
        "tt_steps": train.steps,
        "tt_wd": train.weight_decay,
        "tt_mode": train.batch_mode,
        "tt_sched": train.schedule,
        "tt_ntrain": task.n_train,
    }


layout.intro(
    "Train a transformer live",
    "A tiny transformer (pre-LayerNorm blocks, multi-head self-attention, an MLP) learns a toy task "
    "in seconds on a CPU. Pick a preset, press **Start**, and watch the loss fall and the attention "
    "maps of one fixed example sharpen. Encoders see the whole sequence; causal decoders only the past.",
)
layout.presets({name: preset_values(*p) for name, p in PRESETS.items()}, key="tt_preset")

task_col, model_col, train_col = st.columns(3)
with task_col:
    task_name = st.selectbox("task", TASK_NAMES, key="tt_task", bind="query-params")
    st.caption(TASK_NOTES[task_name])
    length = st.slider("sequence length", 4, 24, 8, key="tt_len", bind="query-params")
    symbols = st.slider("symbols (digits, or p)", 3, 64, 10, key="tt_sym", bind="query-params")
    n_train = st.select_slider(
        "training examples",
        [500, 1000, 2000, 5000, 10000],
        value=2000,
        key="tt_ntrain",
        bind="query-params",
    )
with model_col:
    layers = st.slider("layers", 1, 4, 1, key="tt_layers", bind="query-params")
    heads = st.select_slider("heads", [1, 2, 4], value=1, key="tt_heads", bind="query-params")
    d_model = st.select_slider(
        "d_model", [16, 32, 64, 128], value=32, key="tt_d", bind="query-params"
    )
    dropout = st.select_slider(
        "dropout", [0.0, 0.1, 0.2, 0.5], value=0.0, key="tt_drop", bind="query-params"
    )
    positional = st.selectbox("positions", POSITIONAL, key="tt_pos", bind="query-params")
with train_col:
    optimizer = st.selectbox(
        "optimizer", OPTIMIZERS, index=OPTIMIZERS.index("adamw"), key="tt_opt", bind="query-params"
    )
    lr = st.select_slider("learning rate", RATES, value=3e-3, key="tt_lr", bind="query-params")
    batch_mode = st.radio(
        "batches", BATCH_MODES, index=1, key="tt_mode", bind="query-params", horizontal=True
    )
    batch = st.select_slider(
        "batch size", [1, 8, 16, 32, 64, 128, 256], value=64, key="tt_bs", bind="query-params"
    )
    steps = st.slider("steps", 50, 5000, 800, 50, key="tt_steps", bind="query-params")
    schedule = st.radio(
        "learning-rate schedule",
        SCHEDULES,
        key="tt_sched",
        bind="query-params",
        horizontal=True,
        help="cosine: the rate falls smoothly to 0 by the last step",
    )
    weight_decay = st.select_slider(
        "weight decay", [0.0, 0.01, 0.1, 1.0], value=0.0, key="tt_wd", bind="query-params"
    )

seed = settings().seed
task_spec = TaskSpec(task_name, length=length, n_symbols=symbols, n_train=n_train, seed=seed)
model = TransformerConfig(
    n_layer=layers,
    n_head=heads,
    d_model=d_model,
    d_ff=2 * d_model,
    dropout=dropout,
    positional=positional,
)
spec = TransformerJobSpec(task_spec, model, settings().device)
config = TrainConfig(
    optimizer=optimizer,
    lr=lr,
    batch_mode=batch_mode,
    batch_size=batch,
    steps=steps,
    schedule=schedule,
    weight_decay=weight_decay,
    eval_every=20,
    snapshot_every=25,
    seed=seed,
)
task = build_task(task_spec)
probe_tokens = task.decode(task.val_x[task.probe])
st.caption(f"{task.notes} Probe example: `{' '.join(probe_tokens)}`")


def draw_live(run: LiveRun) -> None:
    """The probe's attention maps and, once the run is paused or over, the tools; all built from
    the run's own spec (the panel gives a snapshot only when it is the page's current one)."""
    if run.snapshot is None:
        st.caption("Attention maps of the probe example appear here once training starts.")
        return
    attention_by_layer(run.snapshot["attention"], probe_tokens, "tt_live")
    if run.state.active:
        return
    trained_task, trained = restore(run.spec, run.snapshot["state"])
    loaded = save_and_load(trained, {"task": dataclasses.asdict(run.spec.task)})
    trained = loaded or trained
    tools = st.tabs(["Your input", "Generate", "Head ablation"])
    with tools[0]:
        try_input(trained, trained_task)
    with tools[1]:
        if run.spec.task.name == "next_char":
            generate_text(trained, trained_task)
        else:
            st.info("Generation is for the next-character task.")
    with tools[2]:
        ablation(trained, trained_task)


training_panel("tt", spec, config, draw_live, problems=model.problems())

layout.try_this(
    [
        "**Reverse: 1 layer, 1 head** → Start: within a few hundred steps the anti-diagonal appears.",
        "Scrub the timeline after training: watch the attention go from blurry to sharp.",
        "**Copy: causal decoder**: after '|' each position looks back at the digit it must copy (an offset diagonal).",
        "Set positions to *none* on reverse: the model cannot know where a token is, and accuracy stalls.",
    ]
)
