"""Page 2: attention as a learned kernel smoother (seed 000), trained live."""

from dataclasses import replace

import numpy as np
import streamlit as st

from attnviz.core.kernels import KERNELS, LEARNED
from attnviz.data.toy import DATASETS, DatasetSpec
from attnviz.figures.kernel import fit_1d, fit_2d, query_weights, weight_matrix
from attnviz.models.kernel_smoother import KernelSmootherConfig
from attnviz.topics.kernel.task import KernelJobSpec, KernelTrainable, views
from attnviz.training.trainer import BATCH_MODES, OPTIMIZERS, TrainConfig
from attnviz.ui import downloads, layout
from attnviz.ui.figures import show
from attnviz.ui.sidebar import settings
from attnviz.ui.training_panel import LiveRun, training_panel

RATES = [0.001, 0.003, 0.01, 0.02, 0.05, 0.1, 0.3, 1.0, 10.0, 1000.0]
WIDTHS = [0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0]


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
    "Seed 000 defines attention as a learnable function: **f_θ(x) = (1/n(x)) Σ_s α(x, x_s) g(x_s)** "
    "with n(x) = Σ_s α(x, x_s). Every labelled sample x_s votes with its value g(x_s) (its label y_s, "
    "or a learned linear ⟨θ', x_s⟩), weighted by how much the query x *attends* to it. The kernel α "
    "can be learned: **dot product** exp(⟨θ_q x, θ_k x_s⟩) or **Mahalanobis** exp(−‖θ(x − x_s)‖²) "
    "with θ ∈ R^{K×J}. Press Start and watch θ learn.",
)
RINGS = dict(ks_data="rings_2d", ks_rank=2, ks_lr=0.02, ks_loo=True, ks_steps=400)
PRESETS = {
    "Nadaraya–Watson, 1-D": dict(
        ks_data="sine_1d", ks_kernel="gaussian", ks_g="label", ks_width=0.3, ks_loo=True
    ),
    "Mahalanobis on rings": dict(RINGS, ks_kernel="mahalanobis", ks_width=2.0),
    "Dot product on rings": dict(RINGS, ks_kernel="dot_product"),
    "Overfit without leave-one-out": dict(
        ks_data="sine_1d", ks_kernel="mahalanobis", ks_loo=False, ks_lr=0.3, ks_steps=1000
    ),
}
layout.presets(PRESETS, key="ks_preset")

data_col, model_col, train_col = st.columns(3)
with data_col:
    st.markdown("**Data**")
    data_name = st.selectbox("data set", list(DATASETS), key="ks_data", bind="query-params")
    st.caption(DATASETS[data_name])
    n = st.slider("training samples n", 10, 200, 60, 10, key="ks_n", bind="query-params")
    noise = st.slider("noise", 0.0, 1.5, 0.3, 0.1, key="ks_noise", bind="query-params")
with model_col:
    st.markdown("**Model**")
    kernel = st.selectbox("kernel α", KERNELS, index=1, key="ks_kernel", bind="query-params")
    rank = st.slider(
        "K (rows of θ)", 1, 4, 2, key="ks_rank", bind="query-params", disabled=kernel not in LEARNED
    )
    g = st.radio(
        "value g(x_s)",
        ["label", "linear"],
        key="ks_g",
        bind="query-params",
        horizontal=True,
        help="label: g = y_s (Nadaraya–Watson); linear: g = ⟨θ', x_s⟩ as in seed 000",
    )
    width = st.select_slider(
        "width h (starting value)",
        WIDTHS,
        value=0.5,
        key="ks_width",
        bind="query-params",
        disabled=kernel == "dot_product",
        help="Fixed kernels learn h; Mahalanobis starts from θ = I/(√2 h), the Gaussian of width h.",
    )
    normalised = st.toggle("normalise by n(x)", True, key="ks_norm", bind="query-params")
    loo = st.toggle(
        "leave-one-out",
        True,
        key="ks_loo",
        bind="query-params",
        help="Predict each training point from the others. Off: a sharp kernel can just look itself up.",
    )
with train_col:
    st.markdown("**Training**")
    optimizer = st.selectbox(
        "optimizer", OPTIMIZERS, index=OPTIMIZERS.index("adam"), key="ks_opt", bind="query-params"
    )
    lr = st.select_slider("learning rate", RATES, value=0.02, key="ks_lr", bind="query-params")
    steps = st.slider("steps", 50, 20_000, 400, 50, key="ks_steps", bind="query-params")
    batch_mode = st.radio(
        "batch", BATCH_MODES, key="ks_batch", bind="query-params", horizontal=True
    )
    patience = st.slider(
        "early stopping patience (0 = off)", 0, 20, 0, key="ks_patience", bind="query-params"
    )

seed, device = settings().seed, settings().device
spec = KernelJobSpec(
    DatasetSpec(data_name, n, noise, seed),
    KernelSmootherConfig(
        kernel, rank=rank, value_fn=g, width=width, normalised=normalised, init_scale=0.5, seed=seed
    ),
    leave_one_out=loo,
    device=device,
)
config = TrainConfig(
    optimizer=optimizer,
    lr=lr,
    steps=steps,
    batch_mode=batch_mode,
    patience=patience,
    eval_every=max(5, steps // 1000),  # ≤ ~1000 points per curve, ≤ ~300 snapshots a run
    snapshot_every=max(10, steps // 300),
    seed=seed,
)
task = KernelTrainable(replace(spec, device="cpu"))  # the views: small, on the CPU
st.session_state["_ks_dim"] = task.data.dim
data_col.caption(f"{task.n_train} training and {len(task.data.x_val)} validation samples")
q_cols = st.columns(2)
first = "query x₁" if task.data.dim == 2 else "query x"
qx = q_cols[0].slider(first, -4.0, 6.0, 2.5, 0.1, key="ks_qx", bind="query-params")
qy = q_cols[1].slider(
    "query x₂", -4.0, 6.0, 0.0, 0.1, key="ks_qy", bind="query-params", disabled=task.data.dim == 1
)
query = np.array([qx, qy][: task.data.dim], dtype=np.float32)


def draw_views(run: LiveRun) -> None:
    """The fit, the query's weights and the weight matrix: of the run's θ when it was trained
    with these settings (the panel gives a snapshot only then), else of the untrained model."""
    if st.session_state.pop("_ks_moved", False):
        st.rerun()  # a click moved the query: redraw the whole page, sliders included
    if run.snapshot:
        task.load_snapshot(run.snapshot)
    v = views(task, query)
    left, right = st.columns([3, 2])
    with left:
        fit = (
            fit_1d(task.data, v.grid, v.f_grid, qx, v.ellipse)
            if task.data.dim == 1
            else fit_2d(task.data, v.axes, v.f_grid, query, v.ellipse)
        )
        show(fit, "kernel_fit", key="ks_fit", on_select=move_query, selection_mode="points")
    with right:
        show(query_weights(task.data, v.query_weights), "query_weights")
    show(weight_matrix(v.train_weights, v.order), "weight_matrix")
    downloads.matrices(
        {"training weights": v.train_weights, "query weights": v.query_weights[None, :]},
        "kernel_weights",
        key="ks_dl",
    )


training_panel("ks", spec, config, draw_views)

layout.try_this(
    [
        "Fixed Gaussian kernel on the 1-D data: set the width to 0.05 (wiggly, it chases noise) and 5 (flat).",
        "Press **Overfit without leave-one-out** and Start: the training loss falls towards 0 while the "
        "validation loss rises: the kernel learned to look each point up. Turn leave-one-out back on.",
        "Rings: **Mahalanobis** learns a metric (the dashed ellipse) and separates the ring; **dot product** "
        "can only weigh by direction, and fails.",
        "Set K = 1 on rings with Mahalanobis: θ is a single row, so the ellipse becomes a band.",
    ]
)
