"""Seed 000's learnable attention: f_θ(x) = (1/n(x)) Σ_s α(x, x_s) g(x_s), n(x) = Σ_s α(x, x_s).

g is the label y_s (Nadaraya–Watson) or the learned linear map ⟨θ', x_s⟩. α is one of the
kernels in attnviz.core.kernels; the fixed kernels learn their width. Leave-one-out drops
x_s = x from its own sum when predicting a training point. The weights pass through the hook
point `hook_weights` (n_queries, n_samples).

Where n(x) = 0 (a kernel with compact support, boxcar or Epanechnikov, with no sample within
reach of x), f(x) is undefined: `forward` returns NaN there, never a silent 0, and `defined`
says where n(x) > 0. The Gaussian-type kernels are positive everywhere: n(x) > 0 always (the
softmax subtracts the row maximum, so no row underflows to 0).

Unnormalised mode replaces 1/n(x) by 1/|S|: f is then defined everywhere (0 where nothing is in
reach). α = exp(log α) is computed in float64, exact (to float64 precision) for log α up to
≈ 709, and nothing is clamped; values past
the float32 range (log α ≳ 88) come back as ±inf in float32, which the Trainer reports as
divergence and the page as points it cannot draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnviz.core.attention import masked_softmax
from attnviz.core.hooks import HookPoint
from attnviz.core.kernels import KERNELS, LEARNED, distance, log_alpha, log_fixed_from_distance

VALUE_FUNCTIONS = ("label", "linear")


@dataclass(frozen=True)
class KernelSmootherConfig:
    kernel: str = "mahalanobis"  # one of attnviz.core.kernels.KERNELS
    dim: int = 1  # J, the input dimension
    rank: int = 1  # K, rows of θ
    value_fn: str = "label"  # "label": g = y_s; "linear": g = ⟨θ', x_s⟩
    width: float = 0.5  # starting width h (fixed kernels; Mahalanobis starts at θ = I/(√2 h))
    normalised: bool = True
    init_scale: float = 1.0
    seed: int = 0

    def problems(self) -> list[str]:
        out = []
        if self.kernel not in KERNELS:
            out.append(f"kernel must be one of {', '.join(KERNELS)}")
        if self.value_fn not in VALUE_FUNCTIONS:
            out.append(f"g must be one of {', '.join(VALUE_FUNCTIONS)}")
        if self.rank < 1 or self.dim < 1:
            out.append("K and J must be at least 1")
        if not self.width > 0:
            out.append("the width must be positive")
        return out


class KernelSmoother(nn.Module):
    """f_θ over a set of labelled samples (xs, ys) given at call time."""

    def __init__(self, config: KernelSmootherConfig):
        super().__init__()
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.config = config
        gen = torch.Generator().manual_seed(config.seed)
        shape = (config.rank, config.dim)

        def init(*size):
            return nn.Parameter(torch.randn(*size, generator=gen) * config.init_scale)

        self.theta_q, self.theta_k = init(*shape), init(*shape)
        # Mahalanobis starts as the Gaussian of the starting width (θ = I/(√2 h)), jittered:
        # a random θ often collapses to a band (rank 1) before it finds the local kernel.
        iso = torch.eye(*shape) / (math.sqrt(2) * config.width)
        self.theta = nn.Parameter(iso + 0.1 * torch.randn(*shape, generator=gen))
        self.theta_prime = nn.Parameter(torch.ones(config.dim))
        self.log_width = nn.Parameter(torch.tensor(math.log(config.width)))
        self.hook_weights = HookPoint()

    def trainable(self) -> list[nn.Parameter]:
        """Only the parameters the chosen kernel and g use and get a gradient for (the boxcar is a
        step in h, flat almost everywhere: its width is not learned; the constant has none)."""
        cfg = self.config
        params = {"dot_product": [self.theta_q, self.theta_k], "mahalanobis": [self.theta]}
        fixed_width = cfg.kernel in ("boxcar", "constant")
        chosen = params.get(cfg.kernel, [] if fixed_width else [self.log_width])
        return chosen + ([self.theta_prime] if cfg.value_fn == "linear" else [])

    def kernel_params(self) -> dict[str, Tensor]:
        return {"theta_q": self.theta_q, "theta_k": self.theta_k, "theta": self.theta}

    def log_alpha(self, x: Tensor, xs: Tensor) -> Tensor:
        """log α(x, x_s): (n_q, n_s)."""
        width = self.log_width.exp()
        if self.config.kernel in LEARNED:
            return log_alpha(self.config.kernel, x, xs, self.kernel_params(), 1.0)
        return log_fixed_from_distance(self.config.kernel, distance(x, xs) / width)

    def weights_and_defined(
        self, x: Tensor, xs: Tensor, exclude: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """(weights (n_q, n_s), defined (n_q,) bool): α/n(x) (or α/|S|), and where f is defined.

        `exclude` (n_q, n_s) True drops a pair. A row with n(x) = 0 has all weights 0 and is
        undefined (normalised mode only: α/|S| is defined everywhere). Unnormalised weights
        come back in float64 (see `unnormalised`).
        """
        la = self.log_alpha(x, xs)  # (n_q, n_s), −inf where α = 0
        if exclude is not None:
            la = la.masked_fill(exclude, float("-inf"))
        in_reach = la > float("-inf")  # α > 0
        if self.config.normalised:
            return self.hook_weights(masked_softmax(la)), in_reach.any(-1)
        defined = torch.ones(la.shape[0], dtype=torch.bool, device=la.device)
        return self.hook_weights(unnormalised(la, xs.shape[0])), defined

    def weights(self, x: Tensor, xs: Tensor, exclude: Tensor | None = None) -> Tensor:
        """α normalised by n(x) (or by |S|); `exclude` (n_q, n_s) True drops a pair. (n_q, n_s)"""
        return self.weights_and_defined(x, xs, exclude)[0].to(x.dtype)

    def values(self, xs: Tensor, ys: Tensor) -> Tensor:
        """g(x_s): the labels, or ⟨θ', x_s⟩. (n_s,)"""
        return ys if self.config.value_fn == "label" else xs @ self.theta_prime

    def fit(
        self, x: Tensor, xs: Tensor, ys: Tensor, exclude: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """(f_θ(x) (n_q,), NaN where undefined; defined (n_q,) bool)."""
        w, defined = self.weights_and_defined(x, xs, exclude)  # (n_q, n_s), (n_q,)
        f = w @ self.values(xs, ys).to(w.dtype)  # finite everywhere: undefined rows give 0
        # NaN through `where`, not 0/0: the gradient at undefined rows is exactly 0, not NaN
        f = torch.where(defined, f, torch.full_like(f, float("nan")))
        return f.to(x.dtype), defined

    def forward(self, x: Tensor, xs: Tensor, ys: Tensor, exclude: Tensor | None = None) -> Tensor:
        """f_θ(x) for every query row of x: (n_q,), NaN where n(x) = 0."""
        return self.fit(x, xs, ys, exclude)[0]


def unnormalised(la: Tensor, n_samples: int) -> Tensor:
    """α/|S| = exp(log α)/|S| in float64: (n_q, n_s).

    Exact to float64 precision for log α ≤ ≈ 709 (no clamp). Cast to float32, values past its
    range (log α ≳ 88 + log |S|) become +inf: an honest overflow rather than a silent clamp.
    """
    return torch.exp(la.double()) / n_samples
