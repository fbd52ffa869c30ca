"""Watching circuits form (issue 28): induction heads, grokking and attention sinks, trained live;
layout over its scene (attnviz.topics.watch_circuits.scene)."""

import streamlit as st

from attnviz.figures.circuits import ablation_figure, head_names
from attnviz.topics.watch_circuits.scene import INDUCTION, SCENE, ablation, notes, so_far
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.widgets import draw
from attnviz.ui.training.page import TrainingPage
from attnviz.ui.training.run_view import LiveRun

TABLE = SCENE.table
SETTINGS = {  # each experiment's own settings, drawn only while it is chosen
    "Induction heads": ("ci_layers",),
    "Grokking": ("ci_p", "ci_frac"),
    "Attention sinks": ("ci_attn", "ci_bos", "ci_window"),
}

page = TrainingPage(
    SCENE,
    "Watching circuits form",
    "Three stories of how attention heads *form* during training, each small enough to train "
    "live on one CPU core: an **induction head** (a two-layer attention-only model learns to "
    "copy what followed the last occurrence of the current token, with a sudden drop in loss), "
    "**grokking** (a network memorises a + b mod p, then much later generalises) and **attention "
    "sinks** (heads park their attention on the first token). Pick a preset, press **Start**.",
    ["Experiment"],
)
(experiment_col,) = page.groups
with experiment_col:
    drawn = {"ci_exp": draw(TABLE, "ci_exp")}
    drawn |= {key: draw(TABLE, key) for key in SETTINGS[drawn["ci_exp"]]}
values = page.settle(drawn)
untrained = page.untrained()  # step 0


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
    else:
        result = so_far(run.state.history, run.state.snapshots, run.step)
    place(SCENE.views(result, values))
    if run.snapshot is not None and not run.state.active and values["ci_exp"] == INDUCTION:
        with st.container(border=True):
            st.markdown("**Ablate a head** (the shown step's model, 256 held-out sequences)")
            ablation_tool(run)


page.panel(draw_live, problems=page.job.train.problems(), curves_last=True)

layout.try_this(SCENE.try_this)
