"""Page 5: train a tiny transformer live and watch its attention form (seeds 002, 003)."""

import dataclasses

import streamlit as st

from attnviz.data.tasks import TaskSpec, build_task
from attnviz.models.transformer import TransformerConfig
from attnviz.topics.training_params import train_config
from attnviz.topics.transformer.params import TABLE, TRY_THIS
from attnviz.topics.transformer.task import (
    SEQUENCE_ACCURACY,
    TransformerJobSpec,
    restore,
    untrained_attention,
)
from attnviz.ui import layout
from attnviz.ui.settings import settings
from attnviz.ui.training_form import training_form
from attnviz.ui.training_panel import LiveRun, training_panel
from attnviz.ui.transformer_tools import (
    ablation,
    attention_by_layer,
    generate_text,
    save_and_load,
    try_input,
)
from attnviz.ui.widgets import draw, preset_buttons, reset_button

TASK_NOTES = {
    "reverse": "encoder: output position i = input position T−1−i",
    "sort": "encoder: write the digits in increasing order",
    "copy": "causal decoder: digits, '|', then the same digits again",
    "modular_addition": "encoder: a + b = (a + b) mod p, scored on sums never seen in training. "
    "With small p it memorises first and generalises late (grokking); p = 47 finds the rule sooner",
    "next_char": "causal decoder: predict the next character of the bundled fables",
    "fill_blank": "encoder, self-supervised: fill in the hidden character '_'",
}


layout.intro(
    "Train a transformer live",
    "A tiny transformer (pre-LayerNorm blocks, multi-head self-attention, an MLP) learns a toy task "
    "in seconds on a CPU. Pick a preset, press **Start**, and watch the loss fall and the attention "
    "maps of one fixed example sharpen. Encoders see the whole sequence; causal decoders only the past.",
)
preset_buttons(TABLE, per_row=3)
reset_button(TABLE)
places = layout.training_layout(["Task", "Model", "Training"])  # Start in the first screen
task_col, model_col, train_col = places.groups
with task_col:
    task_name = draw(TABLE, "tt_task")
    st.caption(TASK_NOTES[task_name])
    length = draw(TABLE, "tt_len")
    symbols = draw(TABLE, "tt_sym")
    n_train = draw(TABLE, "tt_ntrain")
with model_col:
    layers = draw(TABLE, "tt_layers")
    heads = draw(TABLE, "tt_heads")
    d_model = draw(TABLE, "tt_d")
    dropout = draw(TABLE, "tt_drop")
    positional = draw(TABLE, "tt_pos")
with train_col:
    form = training_form(TABLE)

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
config = train_config(TABLE.prefix, form, eval_every=20, snapshot_every=25, seed=seed)
task = build_task(task_spec)
probe_tokens = task.decode(task.val_x[task.probe])
st.caption(f"{task.notes} Probe example: `{' '.join(probe_tokens)}`")


def draw_live(run: LiveRun) -> None:
    """The probe's attention maps and, once the run is paused or over, the tools; all built from
    the run's own spec (the panel gives a snapshot only when it is the page's current one)."""
    history = run.state.history if run.state is not None else None
    if history is not None and history.val_metric:
        seq = history.latest_extra(SEQUENCE_ACCURACY)
        per_token, per_sequence = st.columns(2)
        per_token.metric("validation accuracy, per token", f"{history.val_metric[-1]:.1%}")
        per_sequence.metric(
            "validation accuracy, per sequence", "–" if seq is None else f"{seq:.1%}"
        )
        st.caption(
            f"At step {history.eval_step[-1]}, on validation examples never seen in training. "
            "Per sequence: the share of examples with every scored token right."
        )
    if run.snapshot is None:
        st.caption(
            "Before training: the freshly initialised model's attention on the probe example "
            "(seeded as Start will be). The run's maps appear here once training starts."
        )
        attention_by_layer(untrained_attention(run.spec), probe_tokens, "tt_init", "Step 0")
        return
    attention_by_layer(
        run.snapshot["attention"], probe_tokens, "tt_live", download=not run.state.active
    )
    if run.state.active:
        return
    trained_task, trained = restore(run.spec, run.snapshot["state"])
    loaded = save_and_load(trained, {"task": dataclasses.asdict(run.spec.task)}, trained_task)
    step = next((s for s, snap in run.state.snapshots if snap is run.snapshot), run.state.step)
    if loaded is None:
        st.caption(f"The maps above and the tools below: this run's model at step {step}.")
    else:
        trained = loaded[0]
        st.caption(
            f"The maps above: this run's model at step {step}. The tools below: **the loaded "
            f"model**, trained on {loaded[1]}."
        )
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


with places.stage:
    training_panel(
        "tt", spec, config, draw_live, problems=model.problems(), buttons_in=places.buttons
    )

layout.try_this(TRY_THIS)
