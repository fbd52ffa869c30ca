"""Watching circuits form (issue 28): induction heads, grokking and attention sinks, trained live;
layout over its scene (attnviz.topics.circuits.scene)."""

import streamlit as st

from attnviz.figures.circuits import ablation_figure, head_names
from attnviz.topics.circuits.params import INDUCTION
from attnviz.topics.circuits.scene import SCENE, ablation, notes, so_far
from attnviz.ui import layout
from attnviz.ui.figures import show
from attnviz.ui.scene_cache import job_or_stop
from attnviz.ui.settings import settings
from attnviz.ui.training_form import training_form
from attnviz.ui.training_panel import LiveRun, training_panel
from attnviz.ui.widgets import draw, preset_buttons, reset_button

TABLE = SCENE.table
SETTINGS = {  # each experiment's own settings, drawn only while it is chosen
    "Induction heads": ("ci_layers",),
    "Grokking": ("ci_p", "ci_frac"),
    "Attention sinks": ("ci_attn", "ci_bos", "ci_window"),
}

layout.intro(
    "Watching circuits form",
    "Three stories of how attention heads *form* during training, each small enough to train "
    "live on one CPU core: an **induction head** (a two-layer attention-only model learns to "
    "copy what followed the last occurrence of the current token, with a sudden drop in loss), "
    "**grokking** (a network memorises a + b mod p, then much later generalises) and **attention "
    "sinks** (heads park their attention on the first token). Pick a preset, press **Start**.",
)
preset_buttons(TABLE, per_row=3)
reset_button(TABLE)
places = layout.training_layout(["Experiment", "Training"])
experiment_col, train_col = places.groups
with experiment_col:
    drawn = {"ci_exp": draw(TABLE, "ci_exp")}
    drawn |= {key: draw(TABLE, key) for key in SETTINGS[drawn["ci_exp"]]}
with train_col:
    drawn |= training_form(TABLE)

glob = settings()
values = SCENE.values(drawn, seed=glob.seed, device=glob.device)
job, untrained = job_or_stop(SCENE, values)  # what Start submits; step 0


def place(figures: dict) -> None:
    """The views one under another, each across the stage (side by side, a projector's stage
    squeezed the legends and the attention grid)."""
    for name, fig in figures.items():
        show(fig, name, key=f"{name}_chart")


def ablation_tool(run: LiveRun) -> None:
    """Zero one head of the shown snapshot's model: the repeated copy's loss with and without."""
    base, losses = ablation(run.spec, run.snapshot)
    heads = head_names(*losses.shape)
    picked = draw(TABLE, "ci_ablate", choices=heads)
    index = heads.index(picked) if picked in heads else None
    without = losses.ravel()[index] if index is not None else base
    st.metric(
        f"repeated copy's loss without {picked}",
        f"{without:.2f} nats",
        f"{without - base:+.2f} against {base:.2f} with every head",
        delta_color="inverse",
    )
    show(ablation_figure(losses, base, index), "ci_ablation", key="ci_ablation_chart")


def draw_live(run: LiveRun) -> None:
    """The chosen experiment's views of the run as it stands at the shown step (the untrained
    model's before a run); the ablation tool once an induction run is paused or over."""
    for note in notes(values):
        st.info(note, icon=":material/science:")
    if run.snapshot is None:
        result = untrained
        st.caption("Before training (step 0): the freshly initialised model, seeded as Start.")
    else:
        result = so_far(run.state.history, run.state.snapshots, run.step)
    place(SCENE.views(result, values))
    if run.snapshot is not None and not run.state.active and values["ci_exp"] == INDUCTION:
        with st.container(border=True):
            st.markdown("**Ablate a head** (the shown step's model, 256 held-out sequences)")
            ablation_tool(run)


with places.stage:
    training_panel(
        "ci",
        job.spec,
        job.train,
        draw_live,
        problems=job.train.problems(),
        buttons_in=places.buttons,
        curves_last=True,
    )

layout.try_this(SCENE.try_this)
