"""The Watching circuits form page as a scene (issue 28): the job Start submits for the chosen
experiment (induction heads, grokking, attention sinks) and the views of a run so far.

A result is {"history": History, "snapshots": [(step, snapshot), …]} up to the step shown
(`so_far` cuts a run's at a timeline step); `run` gives the untrained model's (step 0, one
evaluation, one snapshot), so the same views draw the page before Start, while a run trains,
every step of the timeline and a run trained in a notebook (`SCENE.train`).

    induction  ci_progress (in-context losses, the phase change marked), ci_scores (each head's
               previous-token and induction score), ci_attention (the last layer on a probe)
    grokking   ci_progress (training and validation accuracy, log steps), ci_norm, ci_spectrum
    sinks      ci_progress (each head's weight on position 0), ci_attention, ci_eviction
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from attnviz.figures import circuits as figs
from attnviz.figures.fonts import retitled
from attnviz.figures.text import heads_grid
from attnviz.topics import live
from attnviz.topics.live import so_far
from attnviz.topics.scene import Job, Scene, Values
from attnviz.topics.training_params import train_config
from attnviz.topics.views import TRAINING_STAGE, View
from attnviz.topics.watch_circuits.grokking import GrokkingJobSpec, grokking_step
from attnviz.topics.watch_circuits.induction import (
    ATTENTION_ONLY,
    INDUCTION_DATA,
    InductionJobSpec,
    InductionSnapshot,
    ablation_losses,
    repeated_copy_loss,
    score_history,
)
from attnviz.topics.watch_circuits.params import GROKKING, INDUCTION, SINKS, TABLE, TRY_THIS
from attnviz.topics.watch_circuits.scores import phase_change_step
from attnviz.topics.watch_circuits.sinks import SINK_DATA, eviction_losses
from attnviz.training.history import History

PHASE_DROP = 0.5  # nats: the least fall of the loss gap that counts as a phase change
HELD_OUT = 256  # sequences the ablation and eviction losses average over (validation's start)


def intervals(experiment: str, steps: int) -> tuple[int, int]:
    """(evaluate every, snapshot every): about 40 snapshots a run (grokking: 30, its snapshots
    carry a 200k-parameter model; evaluations 4× as often)."""
    if experiment == GROKKING:
        every = max(50, math.ceil(steps / 120))
        return every, 4 * every
    every = max(25 if experiment == INDUCTION else 50, math.ceil(steps / 40))
    return every, every


def job_spec(values: Values):
    """The experiment's job spec from the page's values (seeded by the global seed)."""
    seed, device, experiment = int(values["seed"]), values["device"], values["ci_exp"]
    if experiment == GROKKING:
        return GrokkingJobSpec(values["ci_p"], values["ci_frac"], seed=seed, device=device)
    if experiment == SINKS:
        data = replace(SINK_DATA, bos=values["ci_bos"], seed=seed)
        return InductionJobSpec(data, replace(ATTENTION_ONLY, attention=values["ci_attn"]), device)
    model = replace(ATTENTION_ONLY, n_layer=values["ci_layers"])
    return InductionJobSpec(replace(INDUCTION_DATA, seed=seed), model, device)


def config(values: Values) -> Job:
    """The job Start submits: the experiment's spec and the training form."""
    every, snap = intervals(values["ci_exp"], values["ci_steps"])
    seed = int(values["seed"])
    train = train_config("ci", values, eval_every=every, snapshot_every=snap, seed=seed)
    return Job(job_spec(values), train)


def run(config: Job) -> live.RunSoFar:
    """The untrained model's result: one evaluation and one snapshot at step 0, seeded as Start
    will be."""
    return live.started(config.spec)


def extras(history: History, name: str) -> np.ndarray:
    return np.array([ex.get(name, np.nan) for ex in history.extra], dtype=float)


def phase_change(history: History) -> int | None:
    """The step at which the repeated copy's loss fell fastest below the first copy's."""
    gap = extras(history, "loss_repeated_copy") - extras(history, "loss_first_copy")
    return phase_change_step(history.eval_step, gap, PHASE_DROP)


def attention_figure(snapshot: InductionSnapshot, step: int, bos: bool) -> go.Figure:
    """The last layer's heads on the first probe sequence (its second half repeats its first)."""
    maps = snapshot.attention
    layer = maps.shape[0] - 1
    tokens = [str(int(i)) for i in snapshot.probe]
    if bos:
        tokens[0] = "BOS"
    fig = heads_grid(maps[layer], tokens, columns=maps.shape[1])
    title = f"Layer {layer} at step {step}: each head on a sequence whose second half repeats"
    return retitled(fig, title)


def induction_views(result: live.RunSoFar, values: Values) -> dict:
    history, snaps = result.history, result.snapshots
    step, snap = snaps[-1]
    steps, scores = score_history(snaps)
    return {
        "ci_progress": lambda: figs.in_context_figure(
            history.eval_step,
            extras(history, "loss_first_copy"),
            extras(history, "loss_repeated_copy"),
            phase_change(history),
        ),
        "ci_scores": lambda: figs.scores_figure(steps, scores["previous"], scores["induction"]),
        "ci_attention": lambda: attention_figure(snap, step, False),
    }


def grokking_views(result: live.RunSoFar, values: Values) -> dict:
    history, (step, snap) = result.history, result.last
    steps = np.array(history.eval_step)
    log_x = bool((steps > 0).any())
    keep = steps > 0 if log_x else np.ones(len(steps), bool)  # log steps: step 0 has no place
    grok = grokking_step(steps, history.val_metric)
    mark = None if grok is None else (grok, f"validation ≥ 95 %, step {grok}")

    train, val = np.array(history.train_metric), np.array(history.val_metric)
    return {
        "ci_progress": lambda: figs.accuracy_figure(
            steps[keep], train[keep], val[keep], log_x, mark
        ),
        "ci_norm": lambda: figs.norm_figure(
            steps[keep], extras(history, "weight_norm")[keep], log_x
        ),
        "ci_spectrum": lambda: figs.spectrum_figure(snap.spectrum, snap.key_frequencies, step),
    }


def sink_views(result: live.RunSoFar, values: Values) -> dict:
    snaps = result.snapshots
    step, snap = snaps[-1]
    steps, scores = score_history(snaps)
    bos, window = values["ci_bos"], values["ci_window"]

    def eviction() -> go.Figure:
        spec = job_spec(values)
        model = live.restored(spec, snap)
        losses = eviction_losses(model, spec.data.build(HELD_OUT, 1), window)
        return figs.eviction_figure(losses, window)

    return {
        "ci_progress": lambda: figs.sink_figure(steps, scores["sink"], bos),
        "ci_attention": lambda: attention_figure(snap, step, bos),
        "ci_eviction": eviction,
    }


BY_EXPERIMENT = {INDUCTION: induction_views, GROKKING: grokking_views, SINKS: sink_views}


def experiment_views(result: live.RunSoFar, values: Values) -> dict:
    """The chosen experiment's views of `result` (run()'s or so_far()'s): name -> its builder."""
    return BY_EXPERIMENT[values["ci_exp"]](result, values)


def _of_experiment(name: str) -> View:
    """A view the chosen experiment may draw (None when it is another experiment's)."""
    return View(
        name, lambda lazy, values: lazy[name]() if name in lazy else None, span=TRAINING_STAGE
    )


VIEWS = (
    View("ci_progress", lambda lazy, values: lazy["ci_progress"](), main=True, span=TRAINING_STAGE),
    *(
        _of_experiment(name)
        for name in ("ci_scores", "ci_attention", "ci_norm", "ci_spectrum", "ci_eviction")
    ),
)


def notes(values: Values) -> list[str]:
    """What the chosen settings do, as measured here (benchmarks/circuits.py, the tests), where
    it differs from what one might expect or from the papers."""
    experiment, out = values["ci_exp"], []
    if experiment == INDUCTION and values["ci_layers"] == 1:
        out.append(ONE_LAYER)
    if experiment == GROKKING:
        out.append(GROKKING_NOTE)
    if experiment == SINKS:
        out.append(SINK_NOTES[values["ci_attn"]])
        if values["ci_bos"]:
            out.append(BOS_NOTE)
    return out


ONE_LAYER = (
    "One layer does not form an induction head: it takes two heads in sequence, one (layer 0) "
    "that copies each position's previous token into it, and one (layer 1) that finds the "
    "position whose copied previous token is the current token. Measured here: no head's "
    "induction score passes 0.3 (0.11), and the repeated copy's loss falls only to 2.7 nats "
    "(the first copy's: 3.5; with two layers 0.2)."
)
GROKKING_NOTE = (
    "This run takes minutes, not seconds. Measured on one core: by step 100 training accuracy "
    "is 97 % while validation accuracy is below 1 %; validation passes 95 % only at step 4,600 "
    "(259 s). Before that, watch the weight norm fall and the spectrum thin to a few frequencies."
)
SINK_NOTES = {
    "softmax": "Softmax rows sum to 1: a head with nothing to find (in a segment's first copy) "
    "must still put its weight somewhere. Measured here without BOS, after 2,000 steps: a "
    "layer-1 head parks 0.52 of its weight on position 0; evicting position 0 from a 16-key "
    "window raises the loss past the window a little (1.64 → 1.72 nats), and keeping position 0 "
    "in the window restores it (1.63).",
    "softmax1": "Softmax plus one adds 1 to the denominator, so a row may sum to less than 1: "
    "a head can attend to nothing. Measured here: after 2,000 steps no head keeps more than 0.07 "
    "on position 0 (at step 1,000 one still kept 0.21).",
    "sigmoid": "Sigmoid weights need not sum to 1 either, so papers expect no sink. Not so in "
    "this small model: measured here, a layer-1 head still puts 0.72 of its weight on "
    "position 0 after 2,000 steps, and the model learns the task worse than with softmax "
    "(repeated copy 2.1 nats against 0.24).",
}
BOS_NOTE = (
    "A BOS token moves the sink rather than removing it: position 0 is now BOS, so the weight "
    "parked there lands on BOS instead of on the first real token."
)


def ablation(spec: InductionJobSpec, snapshot: InductionSnapshot) -> tuple[float, np.ndarray]:
    """(the repeated copy's loss, that loss with each head zeroed (L, H)) of the snapshot's
    model on the validation sequences' start."""
    model, data = live.restored(spec, snapshot), spec.data.build(HELD_OUT, 1)
    return repeated_copy_loss(model, data), ablation_losses(model, data)


def preset_jobs(experiment: str | None = None) -> dict[str, Job]:
    """The page's presets (written once, in its table) as the Jobs their Start submits, by
    preset name; only the `experiment`'s when given. The measured figures of each (the README,
    the notes above) come from training these: benchmarks/circuits.py, the tests."""
    jobs = {}
    for name, preset in TABLE.presets.items():
        values = SCENE.values(preset)
        if experiment is None or values["ci_exp"] == experiment:
            jobs[name] = config(values)
    return jobs


SCENE = Scene(
    url="watch-circuits",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=experiment_views,
    train=live.train,
    trained_result=lambda run: so_far(run.history, run.snapshots, None),
)
