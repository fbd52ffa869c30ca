"""The Recurrent networks and attention page as a scene (seed 002): the job Start submits (an RNN
encoder–decoder with attention and the same model without it, trained side by side on dates),
the untrained snapshot shown before Start, and the views of any snapshot: the probe's alignment,
your own date's alignment, and (folded sections, asked for by name) exact match by input length
and the encoder's states; the sequential-vs-parallel timing's figures from measured rows."""

from __future__ import annotations

from collections.abc import Collection

import plotly.graph_objects as go

from attnviz.data.dates import MAX_IN, DateTaskSpec
from attnviz.figures.recurrent import (
    alignment_figure,
    length_figure,
    read_figure,
    states_figure,
    steps_figure,
    timing_figure,
)
from attnviz.models.rnn import Seq2SeqConfig
from attnviz.topics import live
from attnviz.topics.recurrent.inference import (
    length_accuracy,
    read_encoder,
    shown_chars,
    translate,
)
from attnviz.topics.recurrent.params import TABLE, TRY_THIS
from attnviz.topics.recurrent.task import RecurrentJobSpec, TrainedRecurrent
from attnviz.topics.scene import Job, Scene, SceneInputError, Values, wants
from attnviz.topics.training_params import train_config
from attnviz.topics.views import metadata_only

EVERY = 50  # steps between evaluations and snapshots
DIRECTIONS = ("forward", "backward")
ENCODER_VIEWS = tuple(f"rn_{kind}_{d}" for d in DIRECTIONS for kind in ("states", "read"))
FOLDED = ("rn_length", *ENCODER_VIEWS)  # drawn only when asked for by name (folded sections)


def config(values: Values) -> Job:
    """The job Start submits: the task, both models and the training form's run."""
    seed = int(values["seed"])
    task = DateTaskSpec(values["rn_task"], n_train=values["rn_ntrain"], seed=seed)
    if task.problems():
        raise SceneInputError(" ".join(task.problems()))
    model = Seq2SeqConfig(
        d_embed=32,
        d_hidden=values["rn_hidden"],
        cell=values["rn_cell"],
        bidirectional=values["rn_bi"],
        attention=values["rn_score"],
    )
    spec = RecurrentJobSpec(task, model, values["device"])
    return Job(spec, train_config("rn", values, eval_every=EVERY, snapshot_every=EVERY, seed=seed))


def run(job: Job) -> dict:
    """The snapshot of both models as the run starts (step 0)."""
    return live.untrained(job.spec)


def restored(snapshot: dict, values: Values) -> TrainedRecurrent:
    """Both models of `snapshot`, trained with the settings in `values`."""
    return config(values).spec.restore(snapshot)


def probe_figure(pair: TrainedRecurrent, alignment, step: int | None) -> go.Figure:
    """The snapshot's alignment for the probe date (teacher-forced), output × input characters."""
    task = pair.task
    text, target = task.input_texts[task.probe], task.target_texts[task.probe]
    when = f"step {step}" if step is not None else "step 0 (untrained)"
    weights = alignment[: len(target) + 1, : len(text)]  # the target's characters and EOS
    return alignment_figure(
        weights,
        [*shown_chars(target), "<eos>"],
        shown_chars(text),
        f"Alignment at {when}: “{text}” → “{target}”",
    )


def encoder_views(pair: TrainedRecurrent, text: str, only: Collection[str]) -> dict[str, go.Figure]:
    """Each direction's states over time and what each state has read (nothing for a text the
    encoder cannot read: empty or too long)."""
    if not text.strip() or len(text) > MAX_IN:
        return {}
    reading = read_encoder(pair.model, text)
    chars = shown_chars(text)
    figs = {}
    for name, states, read in zip(reading.directions, reading.states, reading.read, strict=True):
        arrow = "→" if name == "forward" else "←"
        if f"rn_states_{name}" in only:
            figs[f"rn_states_{name}"] = states_figure(states, chars, f"{name} states {arrow}")
        if f"rn_read_{name}" in only:
            figs[f"rn_read_{name}"] = read_figure(read, chars, f"{name}: what state t has read")
    return figs


def views(
    snapshot: dict, values: Values, only: Collection[str] | None = None, *, step: int | None = None
) -> dict[str, go.Figure]:
    """The views of `snapshot` (the model at `step`; None: untrained, before Start). The folded
    sections' views (FOLDED) only when named in `only`."""
    pair = restored(snapshot, values)
    text = values["rn_input"]
    figs: dict[str, go.Figure] = {}
    if wants(only, "rn_alignment"):
        figs["rn_alignment"] = probe_figure(pair, snapshot["alignment"], step)
    if wants(only, "rn_your_alignment"):
        result = translate(pair, text)
        if result.alignment is not None and len(result.output):
            figs["rn_your_alignment"] = alignment_figure(
                result.alignment,
                shown_chars(result.output),
                shown_chars(text),
                "Your date: where each character looked",
            )
    if only is not None and "rn_length" in only:
        title = "Unseen dates by input length: with and without attention"
        figs["rn_length"] = length_figure(length_accuracy(pair), title)
    if only is not None and set(only) & set(ENCODER_VIEWS):
        figs |= encoder_views(pair, text, only)
    return figs


def timing_views(rows: list[dict]) -> dict[str, go.Figure]:
    """The sequential-vs-parallel timing (attnviz.topics.recurrent.timing.forward_times rows)."""
    return {
        "rn_timing": timing_figure(rows, "One forward pass: RNN encoder vs self-attention"),
        "rn_steps": steps_figure(rows),
    }


SCENE = Scene(
    url="recurrent",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=metadata_only(
        "rn_alignment",
        sections={
            "rn_open_length": ("rn_length",),
            "rn_open_states": ENCODER_VIEWS,
            "rn_open_timing": ("rn_timing",),
        },
    ),
    drawn_together=views,
    train=live.train,
)
