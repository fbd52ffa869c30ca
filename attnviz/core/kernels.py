"""Attention kernels α(x, x_s) of the kernel view of attention (seed 000) and fixed smoothing
kernels.

Seed 000's learnable kernels, θ ∈ R^{K×J}:
    dot product   α(x, x_s) = exp(⟨θ_q x, θ_k x_s⟩)
    Mahalanobis   α(x, x_s) = exp(−‖θ(x − x_s)‖²)
Fixed kernels with a width h (u = (x − x_s)/h): Gaussian exp(−‖u‖²/2), Laplace exp(−‖u‖),
Epanechnikov max(0, 1 − ‖u‖²), boxcar 1[‖u‖ ≤ 1], constant 1.

`log_alpha` returns log α (−inf where α = 0) so callers can normalise stably with a softmax.
"""

from __future__ import annotations

import torch
from torch import Tensor

LEARNED = ("dot_product", "mahalanobis")
FIXED = ("gaussian", "laplace", "epanechnikov", "boxcar", "constant")
KERNELS = LEARNED + FIXED


def dot_product(x: Tensor, xs: Tensor, theta_q: Tensor, theta_k: Tensor) -> Tensor:
    """exp(⟨θ_q x, θ_k x_s⟩): x (n_q, J), xs (n_s, J), θ (K, J) -> (n_q, n_s)."""
    return torch.exp(log_dot_product(x, xs, theta_q, theta_k))


def mahalanobis(x: Tensor, xs: Tensor, theta: Tensor) -> Tensor:
    """exp(−‖θ(x − x_s)‖²): x (n_q, J), xs (n_s, J), θ (K, J) -> (n_q, n_s)."""
    return torch.exp(log_mahalanobis(x, xs, theta))


def log_dot_product(x: Tensor, xs: Tensor, theta_q: Tensor, theta_k: Tensor) -> Tensor:
    return (x @ theta_q.T) @ (xs @ theta_k.T).T  # (n_q, K) @ (K, n_s)


def log_mahalanobis(x: Tensor, xs: Tensor, theta: Tensor) -> Tensor:
    diff = x[:, None, :] - xs[None, :, :]  # (n_q, n_s, J)
    return -((diff @ theta.T) ** 2).sum(-1)  # ‖θ(x − x_s)‖² over the K rows


def log_fixed_from_distance(name: str, u: Tensor) -> Tensor:
    """log α of a fixed kernel as a function of ‖u‖ = ‖x − x_s‖ / h (−inf where α = 0)."""
    if name == "gaussian":
        return -(u**2) / 2
    if name == "laplace":
        return -u
    if name == "epanechnikov":
        return torch.log((1 - u**2).clamp_min(0))
    if name == "boxcar":
        return torch.where(u <= 1, torch.zeros_like(u), torch.full_like(u, float("-inf")))
    if name == "constant":
        return torch.zeros_like(u)
    raise ValueError(f"unknown kernel {name!r}; choose one of {', '.join(KERNELS)}")


def distance(x: Tensor, xs: Tensor) -> Tensor:
    """‖x − x_s‖: x (n_q, J), xs (n_s, J) -> (n_q, n_s), from the differences themselves.

    torch.cdist's default switches to ‖x‖² + ‖x_s‖² − 2⟨x, x_s⟩ past 25 rows, which in float32
    loses ~1e-4 of a small distance (1e-3 in an Epanechnikov f at the defaults, and points
    moved across a compact kernel's edge); the direct form keeps float32's precision.
    """
    return torch.cdist(x, xs, compute_mode="donot_use_mm_for_euclid_dist")


def log_fixed(name: str, x: Tensor, xs: Tensor, width: float) -> Tensor:
    """log α for the fixed kernels with width h: (n_q, n_s)."""
    if not width > 0:
        raise ValueError(f"kernel width must be positive, got {width}")
    return log_fixed_from_distance(name, distance(x, xs) / width)


def log_alpha(name: str, x: Tensor, xs: Tensor, params: dict[str, Tensor], width: float) -> Tensor:
    """log α(x, x_s) for any kernel; learned kernels read θ from `params`."""
    if name == "dot_product":
        return log_dot_product(x, xs, params["theta_q"], params["theta_k"])
    if name == "mahalanobis":
        return log_mahalanobis(x, xs, params["theta"])
    return log_fixed(name, x, xs, width)
