"""Seed 000's kernels and f_θ against the formulas written out by hand in NumPy."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from attnviz.core.kernels import dot_product, log_fixed, mahalanobis
from attnviz.data.toy import DATASETS, DatasetSpec
from attnviz.figures.kernel import fit_1d, fit_2d, query_weights, weight_matrix
from attnviz.figures.training import curves_figure
from attnviz.models import kernel_smoother
from attnviz.models.kernel_smoother import KernelSmoother, KernelSmootherConfig
from attnviz.topics.kernel.task import KernelJobSpec, KernelTrainable, metric_ellipse, views
from attnviz.training.trainer import TrainConfig, Trainer

RNG = np.random.default_rng(0)
X, XS = RNG.normal(size=(4, 3)), RNG.normal(size=(6, 3))
TQ, TK = RNG.normal(size=(2, 3)) * 0.5, RNG.normal(size=(2, 3)) * 0.5


def t(a):
    return torch.from_numpy(a)


def test_dot_product_kernel_is_exp_of_projected_inner_product():
    ref = np.array([[np.exp((TQ @ x) @ (TK @ xs)) for xs in XS] for x in X])
    np.testing.assert_allclose(dot_product(t(X), t(XS), t(TQ), t(TK)).numpy(), ref, rtol=1e-6)


def test_mahalanobis_kernel_is_exp_of_minus_squared_theta_distance():
    ref = np.array([[np.exp(-np.sum((TQ @ (x - xs)) ** 2)) for xs in XS] for x in X])
    np.testing.assert_allclose(mahalanobis(t(X), t(XS), t(TQ)).numpy(), ref, rtol=1e-6)


@pytest.mark.parametrize(
    ("name", "formula"),
    [
        ("gaussian", lambda u: np.exp(-(u**2) / 2)),
        ("laplace", lambda u: np.exp(-u)),
        ("epanechnikov", lambda u: np.maximum(0, 1 - u**2)),
        ("boxcar", lambda u: (u <= 1).astype(float)),
        ("constant", lambda u: np.ones_like(u)),
    ],
)
def test_fixed_kernels_match_their_formulas(name, formula):
    h = 1.3
    u = np.linalg.norm(X[:, None, :] - XS[None, :, :], axis=-1) / h
    got = np.exp(log_fixed(name, t(X), t(XS), h).numpy())
    np.testing.assert_allclose(got, formula(u), atol=1e-6)


@pytest.mark.parametrize("value_fn", ["label", "linear"])
@pytest.mark.parametrize("normalised", [True, False])
def test_f_theta_equals_the_explicit_double_sum(value_fn, normalised):
    cfg = KernelSmootherConfig(
        "mahalanobis", dim=3, rank=2, value_fn=value_fn, normalised=normalised
    )
    model = KernelSmoother(cfg).double()
    ys = RNG.normal(size=6)
    theta, theta_prime = model.theta.detach().numpy(), model.theta_prime.detach().numpy()
    with torch.no_grad():
        got = model(t(X), t(XS), t(ys)).numpy()
    for i, x in enumerate(X):  # f(x) = (1/n(x)) Σ_s α(x, x_s) g(x_s)
        alpha = [np.exp(-np.sum((theta @ (x - xs)) ** 2)) for xs in XS]
        g = ys if value_fn == "label" else XS @ theta_prime
        n = sum(alpha) if normalised else len(XS)
        assert got[i] == pytest.approx(
            sum(a * gs for a, gs in zip(alpha, g, strict=True)) / n, rel=1e-6
        )


def test_leave_one_out_excludes_the_diagonal():
    task = KernelTrainable(KernelJobSpec(DatasetSpec("sine_1d", n=20)))
    rows = torch.arange(task.n_train)
    w = task.model.weights(task.xs, task.xs, task.exclude_self(rows)).detach()
    assert torch.all(torch.diagonal(w) == 0)
    torch.testing.assert_close(w.sum(1), torch.ones(task.n_train))
    off = KernelTrainable(KernelJobSpec(DatasetSpec("sine_1d", n=20), leave_one_out=False))
    assert torch.all(torch.diagonal(off.model.weights(off.xs, off.xs).detach()) > 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(DATASETS))
def test_training_lowers_validation_loss_on_every_dataset(name):
    spec = KernelJobSpec(  # starts broad (h = 2): training has to find the right locality
        DatasetSpec(name, n=100, seed=0), KernelSmootherConfig("mahalanobis", rank=2, width=2.0)
    )
    trainer = Trainer(KernelTrainable(spec), TrainConfig(lr=0.02, steps=150, eval_every=150))
    trainer.run()
    assert trainer.status == "done"
    assert trainer.history.val_loss[-1] < trainer.history.val_loss[0]


def test_metric_ellipse_points_satisfy_the_equation():
    theta = np.array([[2.0, 0.5], [0.0, 1.0]])
    pts = metric_ellipse(theta, np.array([1.0, -1.0]), reach=100)
    np.testing.assert_allclose(
        np.linalg.norm((pts - [1.0, -1.0]) @ theta.T, axis=1), 1.0, atol=1e-9
    )


def assert_starts_as_the_gaussian_of_its_width() -> None:
    """The engine's starting θ is I/(√2 h) plus a jitter that does not depend on h."""
    theta = {  # same seed, so the same jitter at every width: differences are exact
        h: KernelSmoother(KernelSmootherConfig("mahalanobis", dim=2, rank=2, width=h))
        .theta.detach()
        .numpy()
        for h in (0.7, 0.2)
    }
    np.testing.assert_allclose(
        theta[0.7] - theta[0.2], np.eye(2) * (1 / 0.7 - 1 / 0.2) / np.sqrt(2), atol=1e-5
    )
    h = 0.05  # narrow: the jitter (0.1 · N(0, 1) on θ) moves log α at ‖x − x_s‖ = h by ≈ 0.01
    model = KernelSmoother(KernelSmootherConfig("mahalanobis", dim=2, rank=2, width=h))
    x, xs = torch.zeros(1, 2), torch.tensor([[h, 0.0], [0.0, h]])
    with torch.no_grad():  # the engine's own θ, through the engine's own kernel
        log_alpha = model.log_alpha(x, xs).numpy()
    np.testing.assert_allclose(log_alpha, -0.5, atol=0.05)  # the Gaussian: exp(−‖u‖²/2), ‖u‖ = 1


def test_mahalanobis_starts_as_the_gaussian_of_the_starting_width():
    assert_starts_as_the_gaussian_of_its_width()


def test_the_width_check_rejects_theta_starting_at_identity_over_h(monkeypatch):
    # The wrong implementation this oracle was seen to reject: θ₀ = I/h instead of I/(√2 h)
    # (the first difference is then √2 times too large; log α = −1 instead of −1/2).
    def start(width):
        return KernelSmoother(KernelSmootherConfig("mahalanobis", width=width)).theta.item()

    right = start(0.5)
    monkeypatch.setattr(kernel_smoother, "math", SimpleNamespace(sqrt=lambda _x: 1.0, log=math.log))
    assert start(0.5) - right == pytest.approx(2 - np.sqrt(2), abs=1e-6)  # now I/h: 2, not √2
    with pytest.raises(AssertionError):
        assert_starts_as_the_gaussian_of_its_width()


def test_absent_device_falls_back_to_cpu():
    task = KernelTrainable(KernelJobSpec(DatasetSpec("sine_1d", n=20), device="no-such-device"))
    assert task.device.type == "cpu" and task.xs.device.type == "cpu"


@pytest.mark.parametrize("name", ["sine_1d", "rings_2d"])
def test_kernel_figures_are_valid_plotly_with_hover(name):
    task = KernelTrainable(KernelJobSpec(DatasetSpec(name, n=20)))
    trainer = Trainer(task, TrainConfig(steps=3, eval_every=1)).run()
    query = np.zeros(task.data.dim, dtype=np.float32)
    v = views(task, query)
    fit = (
        fit_1d(task.data, v.grid, v.f_grid, 0.0, v.ellipse)
        if task.data.dim == 1
        else fit_2d(task.data, v.axes, v.f_grid, query, v.ellipse)
    )
    figs = [
        fit,
        query_weights(task.data, v.query_weights),
        weight_matrix(v.train_weights, v.order),
        curves_figure(trainer.history, "R²", log_y=True),
    ]
    for fig in figs:
        go.Figure(fig.to_dict())  # raises on any invalid property
        assert fig.layout.title.text and fig.layout.xaxis.title.text
        hover = [tr.hovertemplate for tr in fig.data if tr.hoverinfo != "skip"]
        assert hover and all(hover), fig.layout.title.text
