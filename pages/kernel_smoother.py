"""Page 2: attention as a learned kernel smoother (seed 000), trained live: layout over its scene
(attnviz.topics.kernel_smoother.scene)."""

import numpy as np
import streamlit as st

from attnviz.core.kernels import LEARNED
from attnviz.data.toy import DATASETS
from attnviz.topics.kernel_smoother.scene import SCENE, measure, notes, samples
from attnviz.ui.common import downloads, layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.widgets import draw
from attnviz.ui.training.page import TrainingPage
from attnviz.ui.training.run_view import LiveRun

TABLE = SCENE.table


def move_query() -> None:
    """on_select: a click on the data figure moves the query there (the query's sliders are
    drawn after it, in the same fragment, so they show it)."""
    points = st.session_state["ks_fit"].selection.get("points", [])
    if points:
        st.session_state["ks_qx"] = round(float(np.clip(points[0]["x"], -4, 6)), 1)
        if "y" in points[0] and st.session_state.get("_ks_dim") == 2:
            st.session_state["ks_qy"] = round(float(np.clip(points[0]["y"], -4, 6)), 1)


page = TrainingPage(
    SCENE,
    "Attention as a learned kernel smoother",
    "Seed 000 defines attention as a learnable function: "
    r"$f_\theta(x) = \frac{1}{n(x)} \sum_s \alpha(x, x_s)\, g(x_s)$ with "
    r"$n(x) = \sum_s \alpha(x, x_s)$. Every labelled sample $x_s$ votes with its value $g(x_s)$ "
    r"(its label $y_s$, or a learned linear $\langle \theta', x_s \rangle$), weighted by how much "
    r"the query $x$ *attends* to it. The kernel $\alpha$ can be learned: **dot product** "
    r"$\exp\langle \theta_q x, \theta_k x_s \rangle$ or **Mahalanobis** "
    r"$\exp(-\lVert \theta (x - x_s) \rVert^2)$ with $\theta \in \mathbb{R}^{K \times J}$. "
    "Press Start and watch θ learn.",
    ["Data", "Model"],
)
data_col, model_col = page.groups
with data_col:
    drawn = {"ks_data": draw(TABLE, "ks_data")}
    st.caption(DATASETS[drawn["ks_data"]])
    drawn |= {key: draw(TABLE, key) for key in ("ks_n", "ks_noise")}
with model_col:
    kernel = drawn["ks_kernel"] = draw(TABLE, "ks_kernel")
    drawn["ks_rank"] = draw(TABLE, "ks_rank", disabled=kernel not in LEARNED)
    drawn["ks_g"] = draw(TABLE, "ks_g")
    drawn["ks_width"] = draw(TABLE, "ks_width", disabled=kernel == "dot_product")
    drawn |= {key: draw(TABLE, key) for key in ("ks_norm", "ks_loo")}
values = page.settle(drawn)
data = samples(values)
st.session_state["_ks_dim"] = data.dim
data_col.caption(f"{len(data.x_train)} training and {len(data.x_val)} validation samples")


def query_sliders() -> None:
    """The query's sliders, in the training panel's fragment with the views they move: a move
    (or a click on the fit) reruns that fragment alone, not the page and its training form
    (issue 26). The query is no part of the job, so a run's snapshot stays valid."""
    q_cols = st.columns(2)
    with q_cols[0]:
        values["ks_qx"] = draw(TABLE, "ks_qx", label="query x₁" if data.dim == 2 else "query x")
    with q_cols[1]:
        values["ks_qy"] = draw(TABLE, "ks_qy", disabled=data.dim == 1)


def draw_views(run: LiveRun) -> None:
    """The fit and the query's weights with the query's sliders (under them in normal mode),
    then the weight matrix: of the run's θ when it was trained with
    these settings (the panel gives a snapshot only then), else of the untrained model."""
    place = layout.view_first_on_a_laptop()  # the fit above the sliders on a laptop
    query_sliders()
    above = place()
    snapshot = run.snapshot or scene_run(SCENE, values)
    task, v = measure(snapshot, values)
    say = {"error": above.error, "warning": above.warning, "info": above.info}
    for level, text in notes(task, v):
        say[level](text)
    figs = SCENE.views(snapshot, values)
    left, right = above.columns([3, 2])
    with left:
        show(
            figs["kernel_fit"],
            "kernel_fit",
            key="ks_fit",
            on_select=move_query,
            selection_mode="points",
        )
    with right:
        show(figs["query_weights"], "query_weights")
    show(figs["weight_matrix"], "weight_matrix")
    downloads.matrices(
        {"training weights": v.train_weights, "query weights": v.query_weights[None, :]},
        "kernel_weights",
        key="ks_dl",
        labels={
            "training weights": (points := [f"x_{i}" for i in range(len(v.order))], points),
            "query weights": (["query"], points),
        },
    )


page.panel(draw_views, curves_last=True)

layout.try_this(SCENE.try_this)
