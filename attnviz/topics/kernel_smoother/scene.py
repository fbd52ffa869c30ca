"""The Attention as a kernel smoother page as a scene (seed 000): a toy data set and a kernel
smoother f_θ (the job Start submits), and the views of a snapshot of θ: the data with the
fitted f and the query, the query's weight on each sample, and the sorted weight matrix; with
the notes on points where f is undefined. `run` gives the untrained θ, so the same views draw
the page before Start, every step of the timeline and a run trained in a notebook."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.data.toy import DatasetSpec, ToyData, make_dataset
from attnviz.figures.kernel import (
    fit_1d,
    fit_2d,
    gap_note,
    in_lines,
    query_weights,
    retitle,
    weight_matrix,
)
from attnviz.models.kernel_smoother import KernelSmootherConfig
from attnviz.topics import live
from attnviz.topics.kernel_smoother.params import TABLE, TRY_THIS
from attnviz.topics.kernel_smoother.task import (
    KernelJobSpec,
    KernelSnapshot,
    KernelTrainable,
    ViewData,
    view_data,
)
from attnviz.topics.scene import Job, Scene, Values
from attnviz.topics.training_params import train_config
from attnviz.topics.views import View

FIT_TITLES = {  # by input dimension; short, so that they fit the figure's column
    1: "Data and the fitted f_θ(x) (click: move the query)",
    2: "f_θ over the plane (click: move the query)",
}


def data_spec(values: Values) -> DatasetSpec:
    return DatasetSpec(values["ks_data"], values["ks_n"], values["ks_noise"], int(values["seed"]))


def samples(values: Values) -> ToyData:
    """The page's data set (its dimension decides the query's sliders)."""
    return make_dataset(data_spec(values))


def config(values: Values) -> Job:
    """The job Start submits: data, kernel smoother (θ seeded) and the training form, with at
    most ~1000 evaluations and ~300 snapshots a run."""
    seed, steps = int(values["seed"]), values["ks_steps"]
    model = KernelSmootherConfig(
        values["ks_kernel"],
        rank=values["ks_rank"],
        value_fn=values["ks_g"],
        width=values["ks_width"],
        normalised=values["ks_norm"],
        init_scale=0.5,
        seed=seed,
    )
    spec = KernelJobSpec(data_spec(values), model, values["ks_loo"], values["device"])
    train = train_config(
        TABLE.prefix,
        values,
        eval_every=max(5, steps // 1000),
        snapshot_every=max(10, steps // 300),
        seed=seed,
    )
    return Job(spec, train)


def run(config: Job) -> KernelSnapshot:
    """The untrained θ (step 0, seeded as Start will be)."""
    return live.untrained(config.spec)


def query(values: Values, dim: int) -> np.ndarray:
    """The query point (dim,) of the sliders."""
    return np.array([values["ks_qx"], values["ks_qy"]][:dim], dtype=np.float32)


def measure(snapshot: KernelSnapshot, values: Values) -> tuple[KernelTrainable, ViewData]:
    """The model with the snapshot's θ (on the CPU) and the numbers its views draw."""
    task = live.restored(config(values).spec, snapshot)
    return task, view_data(task, query(values, task.data.dim))


def fit_figure(data: ToyData, v: ViewData, values: Values) -> go.Figure:
    """The data and f (a curve in 1-D, a surface in 2-D) with the query; gaps named in the
    title, on a line of their own so a long title is never clipped."""
    note = gap_note(v.grid_undefined, v.grid_overflow).strip()
    note = f"<br>{note}" if note else ""
    if data.dim == 1:
        fit = fit_1d(data, v.grid, v.f_grid, values["ks_qx"], v.ellipse, note)
    else:
        fit = fit_2d(data, v.axes, v.f_grid, query(values, 2), v.ellipse, note)
    return retitle(fit, in_lines(FIT_TITLES[data.dim], 26) + note)


def query_weights_view(measured: tuple[KernelTrainable, ViewData], values: Values) -> go.Figure:
    task, v = measured
    weights = query_weights(task.data, v.query_weights, v.normalised, v.query_defined)
    return retitle(weights, in_lines(weights.layout.title.text, 22))


# each builder gets `measure(snapshot, values)`, measured once per call
VIEWS = (
    View("kernel_fit", lambda m, values: fit_figure(m[0].data, m[1], values), main=True),
    View("query_weights", query_weights_view),
    View("weight_matrix", lambda m, values: weight_matrix(m[1].train_weights, m[1].order)),
)


def notes(task: KernelTrainable, v: ViewData) -> list[tuple[str, str]]:
    """(level: error, warning or info; text): where n(x) = 0 f is undefined: how many points,
    and what that does to the loss; where f is past float32, that it is not drawn."""
    n_train, n_grid = task.n_train, len(v.f_grid)
    loo = task.spec.leave_one_out
    out = []
    if v.train_undefined == n_train:
        out.append(
            (
                "error",
                f"None of the {n_train} training points has a sample in reach: f is undefined "
                "at all of them, so there is no loss to train (Start stops with this reason). "
                "Widen the kernel" + (" or turn leave-one-out off." if loo else "."),
            )
        )
    elif v.train_undefined:
        out.append(
            (
                "warning",
                f"{v.train_undefined} of {n_train} training points have no sample in reach: "
                "left out of the loss (and of the metrics).",
            )
        )
    if v.grid_undefined:
        out.append(
            (
                "info",
                f"f is undefined at {v.grid_undefined} of {n_grid} plotted points (no sample in "
                "reach, n(x) = 0): the fit shows a gap there, not a value.",
            )
        )
    if v.grid_overflow:
        out.append(
            (
                "warning",
                f"f is past the float32 range at {v.grid_overflow} of {n_grid} plotted points "
                "(unnormalised, log α ≳ 88): not drawn. Nothing is clamped.",
            )
        )
    return out


SCENE = Scene(
    url="kernel-smoother",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=measure,
    train=live.train,
)
