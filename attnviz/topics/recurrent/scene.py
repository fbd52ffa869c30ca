"""The Recurrent networks and attention page as a scene (seed 002): the job Start submits (an RNN
encoder–decoder with attention and the same model without it, trained side by side on dates),
the untrained snapshot shown before Start, and the views of any snapshot: the probe's alignment,
your own date's alignment, and (folded sections, asked for by name) exact match by input length
and the encoder's states; the sequential-vs-parallel timing's figures from measured rows. Its
`ops`, the page's other engine calls: translate (your date through both models), read_encoder,
reading_span and measure (the timing's rows)."""

from __future__ import annotations

import functools

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
from attnviz.topics.operations import Operations
from attnviz.topics.recurrent.inference import (
    length_accuracy,
    read_encoder,
    reading_span,
    shown_chars,
    translate,
)
from attnviz.topics.recurrent.params import TABLE, TRY_THIS
from attnviz.topics.recurrent.task import RecurrentJobSpec, RecurrentSnapshot, TrainedRecurrent
from attnviz.topics.recurrent.timing import forward_times
from attnviz.topics.scene import Job, Scene, SceneInputError, Values
from attnviz.topics.training_params import train_config
from attnviz.topics.views import View

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.recurrent.inference import MODEL_NAMES as MODEL_NAMES
from attnviz.topics.recurrent.inference import Translation as Translation
from attnviz.topics.recurrent.task import BASELINE as BASELINE
from attnviz.topics.recurrent.task import TOKEN_ACCURACY as TOKEN_ACCURACY
from attnviz.topics.recurrent.timing import LENGTHS as LENGTHS
from attnviz.topics.recurrent.timing import summary as summary

EVERY = 50  # steps between evaluations and snapshots
DIRECTIONS = ("forward", "backward")


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


def run(config: Job) -> RecurrentSnapshot:
    """The snapshot of both models as the run starts (step 0)."""
    return live.untrained(config.spec)


def restored(snapshot: RecurrentSnapshot, values: Values) -> TrainedRecurrent:
    """Both models of `snapshot`, trained with the settings in `values`."""
    return live.restored(config(values).spec, snapshot)


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


class Drawn:
    """What the views of one call read: both models of the snapshot (restored once), the model's
    `step` (None: untrained, before Start) and, once asked for, the encoder's reading of the
    text typed."""

    def __init__(self, snapshot: RecurrentSnapshot, values: Values, *, step: int | None = None):
        self.snapshot, self.step = snapshot, step
        self.pair, self.text = restored(snapshot, values), values["rn_input"]

    @functools.cached_property
    def reading(self):
        """Each direction's states and reads (None: a text the encoder cannot read, empty or
        too long)."""
        if not self.text.strip() or len(self.text) > MAX_IN:
            return None
        return read_encoder(self.pair.model, self.text)


def alignment_view(d: Drawn, values: Values) -> go.Figure:
    return probe_figure(d.pair, d.snapshot.alignment, d.step)


def your_alignment_view(d: Drawn, values: Values) -> go.Figure | None:
    result = translate(d.pair, d.text)
    if result.alignment is None or not len(result.output):
        return None
    title = "Your date: where each character looked"
    return alignment_figure(
        result.alignment, shown_chars(result.output), shown_chars(d.text), title
    )


def _encoder(kind: str, direction: str) -> View:
    """One direction's states over time, or what each state has read (None when the encoder
    cannot read the text or has no such direction)."""

    def build(d: Drawn, values: Values) -> go.Figure | None:
        reading = d.reading
        if reading is None or direction not in reading.directions:
            return None
        at, chars = reading.directions.index(direction), shown_chars(d.text)
        if kind == "states":
            arrow = "→" if direction == "forward" else "←"
            return states_figure(reading.states[at], chars, f"{direction} states {arrow}")
        return read_figure(reading.read[at], chars, f"{direction}: what state t has read")

    return View(f"rn_{kind}_{direction}", build, section="rn_open_states", folded=True)


def length_view(d: Drawn, values: Values) -> go.Figure:
    title = "Unseen dates by input length: with and without attention"
    return length_figure(length_accuracy(d.pair), title)


TIMING = "rn_open_timing"  # the timing section: the page measures and draws it (timing_views)
VIEWS = (
    View("rn_alignment", alignment_view, main=True),
    View("rn_your_alignment", your_alignment_view),
    View("rn_length", length_view, section="rn_open_length", folded=True),
    *(_encoder(kind, direction) for direction in DIRECTIONS for kind in ("states", "read")),
    View("rn_timing", page=True, section=TIMING, apart=True),  # fresh models timed: no run
    View("rn_sequential_steps", page=True, section=TIMING),
)
ENCODER_VIEWS = tuple(v.name for v in VIEWS if v.section == "rn_open_states")


def timing_views(rows: list[dict]) -> dict[str, go.Figure]:
    """The sequential-vs-parallel timing (attnviz.topics.recurrent.timing.forward_times rows)."""
    return {
        "rn_timing": timing_figure(rows, "One forward pass: RNN encoder vs self-attention"),
        "rn_sequential_steps": steps_figure(rows),
    }


SCENE = Scene(
    url="recurrent",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=Drawn,
    train=live.train,
    ops=Operations(
        translate=translate,
        read_encoder=read_encoder,
        reading_span=reading_span,
        measure=forward_times,
    ),
)
