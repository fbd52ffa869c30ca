"""Page 2: attention as a learned kernel smoother (seed 000), trained live."""

import textwrap
from dataclasses import replace

import numpy as np
import streamlit as st

from attnviz.core.kernels import LEARNED
from attnviz.data.toy import DATASETS, DatasetSpec
from attnviz.figures.kernel import fit_1d, fit_2d, gap_note, query_weights, weight_matrix
from attnviz.models.kernel_smoother import KernelSmootherConfig
from attnviz.topics.kernel.params import TABLE, TRY_THIS
from attnviz.topics.kernel.task import KernelJobSpec, KernelTrainable, KernelViews, views
from attnviz.topics.training_params import train_config
from attnviz.ui import downloads, layout
from attnviz.ui.figures import show
from attnviz.ui.settings import settings
from attnviz.ui.training_form import training_form
from attnviz.ui.training_panel import LiveRun, training_panel
from attnviz.ui.widgets import draw, preset_buttons, reset_button


def move_query() -> None:
    """on_select: a click on the data figure moves the query there."""
    points = st.session_state["ks_fit"].selection.get("points", [])
    if points:
        st.session_state["ks_qx"] = round(float(np.clip(points[0]["x"], -4, 6)), 1)
        if "y" in points[0] and st.session_state.get("_ks_dim") == 2:
            st.session_state["ks_qy"] = round(float(np.clip(points[0]["y"], -4, 6)), 1)
        st.session_state["_ks_moved"] = True  # the query sliders live outside the fragment


layout.intro(
    "Attention as a learned kernel smoother",
    "Seed 000 defines attention as a learnable function: "
    r"$f_\theta(x) = \frac{1}{n(x)} \sum_s \alpha(x, x_s)\, g(x_s)$ with "
    r"$n(x) = \sum_s \alpha(x, x_s)$. Every labelled sample $x_s$ votes with its value $g(x_s)$ "
    r"(its label $y_s$, or a learned linear $\langle \theta', x_s \rangle$), weighted by how much "
    r"the query $x$ *attends* to it. The kernel $\alpha$ can be learned: **dot product** "
    r"$\exp\langle \theta_q x, \theta_k x_s \rangle$ or **Mahalanobis** "
    r"$\exp(-\lVert \theta (x - x_s) \rVert^2)$ with $\theta \in \mathbb{R}^{K \times J}$. "
    "Press Start and watch θ learn.",
)
preset_buttons(TABLE)
reset_button(TABLE)

places = layout.training_layout(["Data", "Model", "Training"])  # Start in the first screen
data_col, model_col, train_col = places.groups
with data_col:
    data_name = draw(TABLE, "ks_data")
    st.caption(DATASETS[data_name])
    n = draw(TABLE, "ks_n")
    noise = draw(TABLE, "ks_noise")
with model_col:
    kernel = draw(TABLE, "ks_kernel")
    rank = draw(TABLE, "ks_rank", disabled=kernel not in LEARNED)
    g = draw(TABLE, "ks_g")
    width = draw(TABLE, "ks_width", disabled=kernel == "dot_product")
    normalised = draw(TABLE, "ks_norm")
    loo = draw(TABLE, "ks_loo")
with train_col:
    form = training_form(TABLE)

seed, device = settings().seed, settings().device
spec = KernelJobSpec(
    DatasetSpec(data_name, n, noise, seed),
    KernelSmootherConfig(
        kernel, rank=rank, value_fn=g, width=width, normalised=normalised, init_scale=0.5, seed=seed
    ),
    leave_one_out=loo,
    device=device,
)
config = train_config(
    TABLE.prefix,
    form,
    eval_every=max(5, form["ks_steps"] // 1000),  # ≤ ~1000 points per curve, ≤ ~300 snapshots a run
    snapshot_every=max(10, form["ks_steps"] // 300),
    seed=seed,
)
task = KernelTrainable(replace(spec, device="cpu"))  # the views: small, on the CPU
st.session_state["_ks_dim"] = task.data.dim
data_col.caption(f"{task.n_train} training and {len(task.data.x_val)} validation samples")
with places.stage:  # the query sits with the views it moves
    q_cols = st.columns(2)
    first = "query x₁" if task.data.dim == 2 else "query x"
    with q_cols[0]:
        qx = draw(TABLE, "ks_qx", label=first)
    with q_cols[1]:
        qy = draw(TABLE, "ks_qy", disabled=task.data.dim == 1)
query = np.array([qx, qy][: task.data.dim], dtype=np.float32)


FIT_TITLES = {  # by input dimension; short, so that they fit the figure's column
    1: "Data and the fitted f_θ(x) (click: move the query)",
    2: "f_θ over the plane (click: move the query)",
}


def retitle(fig, title: str) -> None:
    """Set a title of one or more lines (<br>) with room above the plot for every line."""
    lines = title.count("<br>") + 1
    fig.update_layout(
        title={"text": title, "yanchor": "top", "yref": "container", "pad": {"t": 26}},
        title_y=1.0,
        margin_t=30 + 32 * lines,  # a line of the title at lecture size is about 30 px
    )


def in_lines(title: str, width: int = 34) -> str:
    """Wrap a long figure title at spaces into lines of at most `width` characters, so that it
    fits a narrow column (the words stay as they are: joining the lines gives the title back)."""
    return "<br>".join(textwrap.wrap(title, width, break_long_words=False))


def undefined_notes(v: KernelViews) -> None:
    """Where n(x) = 0, f is undefined: say how many points, and what that does to the loss."""
    n_grid = len(v.f_grid)
    if v.train_undefined == task.n_train:
        st.error(
            f"None of the {task.n_train} training points has a sample in reach: f is undefined "
            "at all of them, so there is no loss to train (Start stops with this reason). "
            "Widen the kernel" + (" or turn leave-one-out off." if loo else ".")
        )
    elif v.train_undefined:
        st.warning(
            f"{v.train_undefined} of {task.n_train} training points have no sample in reach: "
            "left out of the loss (and of the metrics)."
        )
    if v.grid_undefined:
        st.info(
            f"f is undefined at {v.grid_undefined} of {n_grid} plotted points (no sample in "
            "reach, n(x) = 0): the fit shows a gap there, not a value."
        )
    if v.grid_overflow:
        st.warning(
            f"f is past the float32 range at {v.grid_overflow} of {n_grid} plotted points "
            "(unnormalised, log α ≳ 88): not drawn. Nothing is clamped."
        )


def draw_views(run: LiveRun) -> None:
    """The fit, the query's weights and the weight matrix: of the run's θ when it was trained
    with these settings (the panel gives a snapshot only then), else of the untrained model."""
    if st.session_state.pop("_ks_moved", False):
        st.rerun()  # a click moved the query: redraw the whole page, sliders included
    if run.snapshot:
        task.load_snapshot(run.snapshot)
    v = views(task, query)
    undefined_notes(v)
    left, right = st.columns([3, 2])
    with left:
        note = gap_note(v.grid_undefined, v.grid_overflow).strip()
        note = f"<br>{note}" if note else ""  # on its own line: a long title is never clipped
        fit = (
            fit_1d(task.data, v.grid, v.f_grid, qx, v.ellipse, note)
            if task.data.dim == 1
            else fit_2d(task.data, v.axes, v.f_grid, query, v.ellipse, note)
        )
        retitle(fit, in_lines(FIT_TITLES[task.data.dim], 26) + note)
        show(fit, "kernel_fit", key="ks_fit", on_select=move_query, selection_mode="points")
    with right:
        weights = query_weights(task.data, v.query_weights, v.normalised, v.query_defined)
        retitle(weights, in_lines(weights.layout.title.text, 22))
        show(weights, "query_weights")
    show(weight_matrix(v.train_weights, v.order), "weight_matrix")
    downloads.matrices(
        {"training weights": v.train_weights, "query weights": v.query_weights[None, :]},
        "kernel_weights",
        key="ks_dl",
        labels={
            "training weights": (points := [f"x_{i}" for i in range(len(v.order))], points),
            "query weights": (["query"], points),
        },
    )


with places.stage:
    training_panel("ks", spec, config, draw_views, buttons_in=places.buttons)

layout.try_this(TRY_THIS)
