"""The Train a transformer live page as a scene (seeds 002, 003): a toy sequence task and a tiny
transformer (the job Start submits), and the views of a snapshot: the probe example's attention
maps, one figure per layer. `run` gives the untrained model's snapshot, so the same views draw
the page before Start, every step of the timeline and a run trained in a notebook. The figures
of the trained model's tools (your input, generation, head ablation) are built here too, and
their engine calls are its `ops`: run_input, generate, ablate, save and load (the model as
safetensors + JSON), and restore (a snapshot's model, once per snapshot: live.restored)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.data.tasks import TaskSpec, build_task
from attnviz.figures import base as plots
from attnviz.figures.fonts import retitled
from attnviz.figures.text import heads_grid, shown
from attnviz.models.checkpoint import load_model, save_model
from attnviz.models.transformer import TransformerConfig
from attnviz.topics import live
from attnviz.topics.operations import Operations
from attnviz.topics.scene import Job, Scene, Values
from attnviz.topics.train_transformer.params import TABLE, TRY_THIS
from attnviz.topics.train_transformer.task import (
    TransformerJobSpec,
    TransformerSnapshot,
    generate,
    head_ablation,
    run_input,
)
from attnviz.topics.training_params import train_config
from attnviz.topics.views import View

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.train_transformer.checks import ANSWER_ROWS as ANSWER_ROWS
from attnviz.topics.train_transformer.checks import TEXT_TASKS as TEXT_TASKS
from attnviz.topics.train_transformer.checks import fit_problems as fit_problems
from attnviz.topics.train_transformer.checks import modular_answer as modular_answer
from attnviz.topics.train_transformer.checks import parse_input as parse_input
from attnviz.topics.train_transformer.checks import shown_chars as shown_chars
from attnviz.topics.train_transformer.checks import split_known as split_known
from attnviz.topics.train_transformer.checks import trained_on as trained_on
from attnviz.topics.train_transformer.task import SEQUENCE_ACCURACY as SEQUENCE_ACCURACY

EVAL_EVERY, SNAPSHOT_EVERY = 20, 25  # the page's evaluation and snapshot intervals (steps)


@dataclass(frozen=True)
class Probe:
    """The task's notes and the fixed validation example whose attention the page draws."""

    notes: str
    tokens: list[str]


@functools.lru_cache(maxsize=16)
def probe(task: TaskSpec) -> Probe:
    """The probe example of `task` (built once per task: the text tasks read the fables)."""
    built = build_task(task)
    return Probe(built.notes, built.decode(built.val_x[built.probe]))


def config(values: Values) -> Job:
    """The job Start submits: the task, the model (d_ff = 2 d_model) and the training form."""
    seed = int(values["seed"])
    task = TaskSpec(
        values["tt_task"],
        length=values["tt_len"],
        n_symbols=values["tt_sym"],
        n_train=values["tt_ntrain"],
        seed=seed,
    )
    model = TransformerConfig(
        n_layer=values["tt_layers"],
        n_head=values["tt_heads"],
        d_model=values["tt_d"],
        d_ff=2 * values["tt_d"],
        dropout=values["tt_drop"],
        positional=values["tt_pos"],
    )
    train = train_config(
        TABLE.prefix, values, eval_every=EVAL_EVERY, snapshot_every=SNAPSHOT_EVERY, seed=seed
    )
    return Job(TransformerJobSpec(task, model, values["device"]), train)


def run(config: Job) -> live.RunSoFar:
    """The untrained model (step 0, seeded as Start will be), without an evaluation: its views
    are the "Step 0" maps, named tt_init_*."""
    return live.at_start(config.spec)


def layer_figures(
    maps: np.ndarray, tokens: list[str], name: str, label: str = "", first: int = 0
) -> dict[str, go.Figure]:
    """One small-multiples figure per layer of maps (L, H, T, T), named f"{name}_layer{l}"
    (layers counted from `first`); `label` ("Step 0") starts each title."""
    figs = {}
    for layer in range(first, first + maps.shape[0]):
        fig = heads_grid(maps[layer - first], tokens, columns=min(4, maps.shape[1]))
        title = f"Layer {layer}: attention of each head (row: query, column: key)"
        retitled(fig, f"{label}, layer {layer}: {title.split(': ', 1)[1]}" if label else title)
        fig.update_yaxes(automargin=True)  # query labels: the grid plans their room for 800 px
        figs[f"{name}_layer{layer}"] = fig
    return figs


def read(
    shown: live.RunSoFar | TransformerSnapshot, values: Values
) -> tuple[live.RunSoFar | TransformerSnapshot, list[str]]:
    """run()'s untrained model or a run's snapshot, and the probe's tokens (what every view of
    one call reads)."""
    return shown, probe(config(values).spec.task).tokens


def _layer(name: str, layer: int, **where) -> View:
    """Layer `layer`'s maps: `tt_init_*` ("Step 0") of run()'s untrained snapshot, `tt_live_*`
    of a run's snapshot; None for the other kind or a layer the model lacks."""
    untrained = name == "tt_init"

    def build(read_: tuple, values: Values) -> go.Figure | None:
        shown, tokens = read_
        if isinstance(shown, live.RunSoFar) != untrained:
            return None
        maps = (shown.snapshot if untrained else shown).attention  # (L, H, T, T)
        if layer >= maps.shape[0]:
            return None
        label = "Step 0" if untrained else ""
        return layer_figures(maps[layer : layer + 1], tokens, name, label, first=layer)[
            f"{name}_layer{layer}"
        ]

    return View(f"{name}_layer{layer}", build, **where)  # (no span: a grid's row labels at
    # lecture size need the height its 4-line title adds, 30 tokens of fables' preset)


MAX_LAYERS = int(TABLE["tt_layers"].high)
VIEWS = (
    *(_layer("tt_init", layer, main=layer == 0) for layer in range(MAX_LAYERS)),
    # a run's maps replace Step 0's, each layer's in its place (a step showing layer 1 kept an
    # empty stage through a run when only layer 0's stood for Step 0's)
    *(_layer("tt_live", layer, stands_for=f"tt_init_layer{layer}") for layer in range(MAX_LAYERS)),
)


def generated_row_figure(row: np.ndarray, context: str, char: str) -> go.Figure:
    """Where the chosen generated character looked: row (len(context),), last layer, mean of
    heads."""
    title = f"Where '{char}' looked (last layer, mean of heads)"
    return plots.bar_chart(row, shown(list(context)), title, "weight")


def ablation_figure(drops: np.ndarray) -> go.Figure:
    """The accuracy drop (L, H), as accuracy points, when each head is knocked out."""
    labels = [f"L{lay} H{h}" for lay in range(drops.shape[0]) for h in range(drops.shape[1])]
    return plots.bar_chart(
        drops.ravel() * 100, labels, "Accuracy drop when the head is knocked out", "accuracy points"
    )


SCENE = Scene(
    url="train-transformer",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=read,
    train=live.train,
    ops=Operations(
        run_input=run_input,
        generate=generate,
        ablate=head_ablation,
        save=save_model,
        load=load_model,
        restore=live.restored,
    ),
)
