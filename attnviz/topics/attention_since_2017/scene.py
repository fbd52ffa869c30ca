"""The Attention since 2017 page as a scene (issue 44): the variants of 2024–26 (grouped-query,
multi-query, latent, window + sink, gated, differential) trained side by side with multi-head
attention on one decoder task (the job Start submits), and the KV cache of real models.

A result is a `live.RunSoFar` (the history and the snapshots up to the step shown)
(`so_far` cuts a run's at a timeline step); `run` gives the untrained models' (step 0), so the
same views draw the page before Start, every step of the timeline and a run trained in a
notebook (`SCENE.train`). Views:

    sv_progress  each variant's validation loss and accuracy by step, on one chart
    sv_first     each variant's first-token share of attention at the shown step
    sv_maps      the chosen layer and head of every variant on the probe sequence
    sv_cache     each variant's KV-cache bytes per token and attention parameters
    sv_real      real models' KV cache per token at the chosen context, beside multi-head's

Its `ops`: cache_table (the real models' KV cache at a context, the page's table's rows).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from attnviz.data.tasks import TaskSpec, build_task
from attnviz.figures import variants as figs
from attnviz.figures.fonts import retitled
from attnviz.figures.text import heads_grid
from attnviz.models.variant_attention import VARIANT_LABELS, VariantConfig
from attnviz.models.variant_transformer import cache_numbers_per_token
from attnviz.topics import live
from attnviz.topics.attention_since_2017.configs import BYTES, LLAMA3_8B, cache_table
from attnviz.topics.attention_since_2017.params import TABLE, TRY_THIS
from attnviz.topics.attention_since_2017.task import (
    VariantsJobSpec,
    VariantsSnapshot,
    parameter_count,
    uniform_share,
)
from attnviz.topics.live import so_far
from attnviz.topics.operations import Operations
from attnviz.topics.scene import Answer, Job, Scene, SceneInputError, Values
from attnviz.topics.training_params import train_config
from attnviz.topics.views import View

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.attention_since_2017.configs import readable_bytes as readable_bytes
from attnviz.training.history import History

EVAL_EVERY, SNAPSHOT_EVERY = 20, 25
MAP_PX = 360  # px a map of the variants' grid is at least tall


def job_spec(values: Values) -> VariantsJobSpec:
    """The variants, task and attention settings of the page's values (the global seed)."""
    chosen = tuple(values["sv_variants"])
    if not chosen:
        raise SceneInputError("Choose at least one variant to train.")
    seed = int(values["seed"])
    length = 8 if values["sv_task"] == "copy" else 16
    task = TaskSpec(values["sv_task"], length=length, seed=seed)
    attention = VariantConfig(latent=int(values["sv_latent"]), window=int(values["sv_window"]))
    return VariantsJobSpec(task, variants=chosen, attention=attention, device=values["device"])


def config(values: Values) -> Job:
    """The job Start submits: the variants side by side and the training form."""
    seed = int(values["seed"])
    train = train_config(
        "sv", values, eval_every=EVAL_EVERY, snapshot_every=SNAPSHOT_EVERY, seed=seed
    )
    return Job(job_spec(values), train)


def run(config: Job) -> live.RunSoFar:
    """The untrained models' result: one evaluation and one snapshot at step 0."""
    return live.started(config.spec)


def _label(variant: str) -> str:
    return VARIANT_LABELS[variant]


def _colors(spec: VariantsJobSpec) -> dict[str, str]:
    order = list(VARIANT_LABELS)
    return {_label(v): figs.COLORS[order.index(v)] for v in spec.variants}


def progress(history: History, spec: VariantsJobSpec, steps: int | None = None) -> go.Figure:
    """The variants' curves; before a run has more than its step 0, on axes `steps` long."""

    def series(what: str) -> dict[str, np.ndarray]:
        return {
            _label(v): np.array([ex.get(f"{v} {what}", np.nan) for ex in history.extra])
            for v in spec.variants
        }

    until = steps if len(history.eval_step) <= 1 else None
    return figs.progress_figure(
        history.eval_step, series("loss"), series("accuracy"), _colors(spec), until
    )


@functools.lru_cache(maxsize=32)
def cache_numbers(spec: VariantsJobSpec) -> tuple[np.ndarray, np.ndarray]:
    """(KV-cache bytes per token in bf16, attention parameters) of each variant, in order."""
    task = build_task(spec.task)
    configs = spec.configs(task)
    t = task.train_x.shape[1]
    per_token = [cache_numbers_per_token(c, t) * BYTES for c in configs.values()]
    return np.array(per_token), np.array([parameter_count(c) for c in configs.values()])


def maps_figure(
    snapshot: VariantsSnapshot, spec: VariantsJobSpec, values: Values, step: int
) -> go.Figure:
    layer, head = int(values["sv_layer"]), int(values["sv_head"])
    maps = np.stack([snapshot.variants[v]["attention"][layer, head] for v in spec.variants])
    tokens = build_task(spec.task).decode(build_task(spec.task).val_x[0])
    # short names, 4 maps a row; each map tall enough for its 16 query labels in lecture fonts
    fig = heads_grid(maps, tokens, names=list(spec.variants), cell_height=MAP_PX)
    title = f"Step {step}: layer {layer}, head {head} of each variant"
    if np.nanmin(maps) < 0:  # differential attention's A₁ − λA₂: below 0 is shown, not white
        fig.update_traces(zmin=-1, zmax=1, colorscale="RdBu", zmid=0)
        title += " (red: below 0)"
    return retitled(fig, title)


def real_figure(context: int) -> go.Figure:
    rows = cache_table(context)
    return figs.real_cache_figure(
        [r.name for r in rows],
        np.array([r.per_token for r in rows]),
        np.array([r.mha_total / context for r in rows]),
        context,
    )


@dataclass(frozen=True)
class Drawn:
    """What every view of one call reads from a result (run()'s or so_far()'s)."""

    spec: VariantsJobSpec
    history: History
    step: int  # the last snapshot's step
    snap: VariantsSnapshot  # and the snapshot
    names: list[str]  # the variants' labels, in order


def read(result: live.RunSoFar, values: Values) -> Drawn:
    spec = job_spec(values)
    step, snap = result.last
    return Drawn(spec, result.history, step, snap, [_label(v) for v in spec.variants])


def first_view(d: Drawn, values: Values) -> go.Figure:
    t = build_task(d.spec.task).train_x.shape[1]
    shares = np.array([d.snap.variants[v]["first_token"].mean() for v in d.spec.variants])
    return figs.first_token_figure(d.names, shares, uniform_share(t), d.step)


VIEWS = (
    View(
        "sv_progress", lambda d, values: progress(d.history, d.spec, values["sv_steps"]), main=True
    ),
    View("sv_first", first_view),
    View("sv_maps", lambda d, values: maps_figure(d.snap, d.spec, values, d.step)),
    # from the settings alone: a run changes neither
    View(
        "sv_cache", lambda d, values: figs.cache_figure(d.names, *cache_numbers(d.spec)), apart=True
    ),
    View("sv_real", lambda d, values: real_figure(int(values["sv_context"])), apart=True),
)


def first_token_shares(result: live.RunSoFar) -> dict[str, float]:
    """Each variant's first-token share at the result's last snapshot."""
    snap = result.last[1]
    return {v: float(s["first_token"].mean()) for v, s in snap.variants.items()}


def answers(result: dict, values: Values) -> dict[str, Answer]:
    """`mqa_saving`: how many times fewer bytes multi-query caches than multi-head (this page's
    model: one key/value head for all its query heads); `llama_ratio`: how many times smaller
    Llama 3 8B's cache is than multi-head's at the chosen context."""
    llama = next(r for r in cache_table(int(values["sv_context"])) if r.name == LLAMA3_8B.name)
    times = ["1×", "2×", "4×", "8×", "32×"]
    return {
        "mqa_saving": Answer.of(f"{VariantConfig().n_heads}×", times),
        "llama_ratio": Answer.of(f"{llama.times_smaller:.0f}×", times),
    }


SCENE = Scene(
    url="attention-since-2017",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=read,
    answers=answers,
    answer_names=("mqa_saving", "llama_ratio"),
    train=live.train,
    trained_result=lambda run: so_far(run.history, run.snapshots, None),
    ops=Operations(cache_table=cache_table),
)
