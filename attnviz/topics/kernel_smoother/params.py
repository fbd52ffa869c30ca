"""Parameters of the Attention as a kernel smoother page (seed 000): data, model, training,
query, and the page's "Try this" claims (each tested: tests/engine/test_kernel_try_this.py and
tests/app/test_kernel_page.py)."""

from attnviz.core.kernels import KERNELS, LEARNED
from attnviz.data.toy import DATASETS
from attnviz.topics.params import PageParams, Param
from attnviz.topics.training_params import training_params

WIDTHS = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0)


def _query(key: str, label: str, default: float, **extra) -> Param:
    return Param(key, label, "slider", default, low=-4.0, high=6.0, step=0.1, **extra)


TABLE = PageParams(
    prefix="ks",
    params=(
        Param("ks_data", "data set", "selectbox", "sine_1d", choices=tuple(DATASETS)),
        Param("ks_n", "training samples n", "slider", 60, low=10, high=200, step=10),
        Param("ks_noise", "noise", "slider", 0.3, low=0.0, high=1.5, step=0.1),
        Param("ks_kernel", "kernel α", "selectbox", "mahalanobis", choices=KERNELS),
        Param(
            "ks_rank",
            "K (rows of θ)",
            "slider",
            2,
            low=1,
            high=4,
            step=1,
            help=f"Used by the learned kernels ({', '.join(LEARNED)})",
        ),
        Param(
            "ks_g",
            "value g(x_s)",
            "radio",
            "label",
            choices=("label", "linear"),
            help="label: g = y_s (Nadaraya–Watson); linear: g = ⟨θ', x_s⟩ as in seed 000",
        ),
        Param(
            "ks_width",
            "width h (starting value)",
            "select_slider",
            0.5,
            choices=WIDTHS,
            help="Fixed kernels learn h; Mahalanobis starts from θ = I/(√2 h), the Gaussian of "
            "width h.",
        ),
        Param("ks_norm", "normalise by n(x)", "toggle", True),
        Param(
            "ks_loo",
            "leave-one-out",
            "toggle",
            True,
            help="Predict each training point from the others. Off: a sharp kernel can just look "
            "itself up.",
        ),
        *training_params(
            "ks", optimizer="adam", lr=0.02, steps=400, max_steps=20_000, max_steps_per_s=50
        ),
        _query("ks_qx", "query x", 2.5),
        _query("ks_qy", "query x₂", 0.0, shown_when=(("ks_data", "rings_2d"),)),
    ),
    presets={
        "Nadaraya–Watson, 1-D": dict(
            ks_data="sine_1d", ks_kernel="gaussian", ks_g="label", ks_width=0.3
        ),
        "Mahalanobis on rings": dict(
            ks_data="rings_2d", ks_kernel="mahalanobis", ks_width=2.0, ks_steps=400
        ),
        "Dot product on rings": dict(ks_data="rings_2d", ks_kernel="dot_product", ks_steps=400),
        "Overfit without leave-one-out": dict(
            ks_data="sine_1d", ks_kernel="mahalanobis", ks_loo=False, ks_lr=0.3, ks_steps=1000
        ),
    },
)

TRY_THIS = [
    "Fixed Gaussian kernel on the 1-D data: set the width to 0.05 (wiggly, it chases noise) and "
    "5 (flat).",
    "Press **Overfit without leave-one-out** and Start: the training loss falls towards 0 while "
    "the validation loss, after a first dip, climbs back up: the kernel learned to look each "
    "point up. Turn leave-one-out back on.",
    "Rings: **Mahalanobis** learns a metric (the dashed ellipse) and separates the ring; **dot "
    "product** can only weigh by direction, and fails.",
    "Set K = 1 on rings with Mahalanobis: θ is a single row, so the ellipse becomes a band.",
    "**Boxcar** at width 0.05: where no sample is in reach, n(x) = 0 and f is undefined: the "
    "curve breaks there, and those training points are left out of the loss.",
]
