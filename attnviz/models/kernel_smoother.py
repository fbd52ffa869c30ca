"""Seed 000's learnable attention: f_θ(x) = (1/n(x)) Σ_s α(x, x_s) g(x_s), n(x) = Σ_s α(x, x_s).

g is the label y_s (Nadaraya–Watson) or the learned linear map ⟨θ', x_s⟩. α is one of the
kernels in attnviz.core.kernels; the fixed kernels learn their width. Unnormalised mode replaces
1/n(x) by 1/|S|. Leave-one-out drops x_s = x from its own sum when predicting a training point.
The weights pass through the hook point `hook_weights` (n_queries, n_samples).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnviz.core.attention import masked_softmax
from attnviz.core.hooks import HookPoint
from attnviz.core.kernels import KERNELS, LEARNED, log_alpha, log_fixed_from_distance

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
        return log_fixed_from_distance(self.config.kernel, torch.cdist(x, xs) / width)

    def weights(self, x: Tensor, xs: Tensor, exclude: Tensor | None = None) -> Tensor:
        """α normalised by n(x) (or by |S|); `exclude` (n_q, n_s) True drops a pair. (n_q, n_s)"""
        la = self.log_alpha(x, xs)
        keep = None if exclude is None else ~exclude
        if self.config.normalised:
            w = masked_softmax(la, keep)
        else:
            w = la.clamp(max=30).exp() / xs.shape[0]
            w = w if keep is None else w * keep
        return self.hook_weights(w)

    def values(self, xs: Tensor, ys: Tensor) -> Tensor:
        """g(x_s): the labels, or ⟨θ', x_s⟩. (n_s,)"""
        return ys if self.config.value_fn == "label" else xs @ self.theta_prime

    def forward(self, x: Tensor, xs: Tensor, ys: Tensor, exclude: Tensor | None = None) -> Tensor:
        """f_θ(x) for every query row of x: (n_q,)."""
        return self.weights(x, xs, exclude) @ self.values(xs, ys)
