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
from attnviz.figures.kernel import fit_1d, fit_2d, gap_note, query_weights, weight_matrix
from attnviz.figures.training import curves_figure
from attnviz.models import kernel_smoother
from attnviz.models.kernel_smoother import KernelSmoother, KernelSmootherConfig
from attnviz.topics.kernel_smoother.task import (
    KernelJobSpec,
    KernelSnapshot,
    KernelTrainable,
    NoSampleInReach,
    metric_ellipse,
    view_data,
)
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
    v = view_data(task, query)
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
        named = fig.layout.xaxis.title.text or "(x: " in fig.layout.title.text  # curves: the title
        assert fig.layout.title.text and named
        hover = [tr.hovertemplate for tr in fig.data if tr.hoverinfo != "skip"]
        assert hover and all(hover), fig.layout.title.text


COMPACT = {  # the kernels with compact support: α = 0 beyond ‖u‖ = 1, so n(x) can be 0
    "boxcar": lambda u: (u <= 1).astype(float),
    "epanechnikov": lambda u: np.maximum(0, 1 - u**2),
}


def hand_f(x, xs, ys, alpha, exclude=None):
    """Seed 000 by hand: f(x) = Σ_s α g / n(x), NaN where n(x) = Σ_s α = 0. x (n_q,), xs (n_s,)."""
    a = alpha(np.abs(x[:, None] - xs[None, :]))  # (n_q, n_s)
    a = a if exclude is None else np.where(exclude, 0.0, a)
    n = a.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (a @ ys) / n, np.nan), n


@pytest.mark.parametrize("name", list(COMPACT))
def test_f_is_nan_exactly_where_no_sample_is_in_reach(name):
    h = 0.3
    xs, ys = np.sort(RNG.uniform(0, 4, 12)), RNG.normal(size=12)
    x = np.linspace(-1, 5, 200)
    exclude = np.abs(x[:, None] - xs[None, :]) < 0.05  # some pairs dropped, as leave-one-out
    model = KernelSmoother(KernelSmootherConfig(name, dim=1, width=h)).double()
    h = float(model.log_width.detach().exp())  # 0.3 up to the float32 it was made from
    want, n = hand_f(x, xs, ys, lambda u: COMPACT[name](u / h), exclude)
    assert 0 < np.isnan(want).sum() < len(x), "the check needs both kinds of point"
    with torch.no_grad():
        got, defined = model.fit(t(x[:, None]), t(xs[:, None]), t(ys), t(exclude))
    np.testing.assert_array_equal(np.isnan(got.numpy()), n == 0)
    np.testing.assert_array_equal(defined.numpy(), n > 0)
    ok = n > 0
    np.testing.assert_allclose(got.numpy()[ok], want[ok], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(COMPACT))
def test_the_page_defaults_count_undefined_points_and_the_loss_skips_them(name):
    """Issue 16 item 2: h = 0.05 on the 1-D defaults (n = 60) left 18 of 60 plotted points and
    24 of 60 leave-one-out training points with no sample in reach, drawn as f = 0."""
    page = DatasetSpec("sine_1d", n=60, noise=0.3, seed=0)
    task = KernelTrainable(KernelJobSpec(page, KernelSmootherConfig(name, width=0.05)))
    v = view_data(task, np.array([6.0], dtype=np.float32))
    x, y = task.data.x_train[:, 0].astype(float), task.data.y_train.astype(float)
    loo = np.eye(len(x), dtype=bool)
    h = float(task.model.log_width.detach().exp())  # 0.05 as float32 holds it
    want, n = hand_f(x, x, y, lambda u: COMPACT[name](u / h), loo)
    assert (v.train_undefined, v.grid_undefined) == (int((n == 0).sum()), 18) == (24, 18)
    assert np.isnan(v.f_grid).sum() == 18 and not v.query_defined
    assert v.query_weights.sum() == 0
    loss = task.loss(torch.arange(task.n_train))
    ok = n > 0
    assert float(loss.detach()) == pytest.approx(np.mean((want[ok] - y[ok]) ** 2), rel=1e-5)
    if loss.requires_grad:  # Epanechnikov learns h: the undefined points add no NaN
        loss.backward()
        assert all(torch.isfinite(p.grad).all() for p in task.parameters())
    lone = torch.tensor(np.flatnonzero(n == 0)[:3])  # a batch of undefined points only
    assert float(task.loss(lone).detach()) == 0.0
    assert np.isfinite(list(task.evaluate().values())).all()


def test_a_loss_with_every_point_undefined_ends_the_run_with_the_reason():
    task = KernelTrainable(KernelJobSpec(model=KernelSmootherConfig("epanechnikov", width=0.05)))
    task.load_snapshot(KernelSnapshot({"log_width": np.array(math.log(1e-5))}))  # none within 1e-5
    with pytest.raises(NoSampleInReach, match="no training point has a sample within reach"):
        task.loss(torch.arange(5))
    with pytest.raises(NoSampleInReach, match="Widen the kernel or turn leave-one-out off"):
        Trainer(task, TrainConfig(steps=5))  # its first evaluation: the worker reports it


def test_unnormalised_mode_is_exact_for_large_log_alpha():
    """α = exp(⟨θ_q x, θ_k x_s⟩) with log α up to ≈ 80, against float64 by hand. The wrong
    implementation this rejects: log α clamped at 30 (the old engine; off by up to e^50)."""
    cfg = KernelSmootherConfig("dot_product", dim=2, rank=2, normalised=False)
    model = KernelSmoother(cfg)
    tq, tk = np.diag([3.0, 2.0]), np.diag([3.0, 2.5])
    with torch.no_grad():
        model.theta_q.copy_(t(tq)), model.theta_k.copy_(t(tk))
    rng = np.random.default_rng(3)
    x, xs = rng.uniform(0.5, 2.2, (5, 2)), rng.uniform(0.5, 2.2, (7, 2))
    ys = rng.normal(size=7)
    log_a = (x @ tq.T) @ (xs @ tk.T).T  # (5, 7) float64
    assert log_a.max() > 40  # e^10 and more above the old clamp
    want = np.exp(log_a) @ ys / len(xs)
    clamped = np.exp(np.minimum(log_a, 30)) @ ys / len(xs)
    assert not np.allclose(clamped, want, rtol=1e-2), "the old clamp must fail this check"
    with torch.no_grad():
        got = model(t(x).float(), t(xs).float(), t(ys).float()).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-5)  # float32 inputs: rounding of log α only


def test_the_2d_fit_leaves_undefined_cells_blank():
    task = KernelTrainable(
        KernelJobSpec(DatasetSpec("rings_2d", n=60), KernelSmootherConfig("boxcar", width=0.2))
    )
    query = np.zeros(2, dtype=np.float32)
    v = view_data(task, query)
    assert 0 < v.grid_undefined < len(v.f_grid)
    note = gap_note(v.grid_undefined, v.grid_overflow)
    fig = fit_2d(task.data, v.axes, v.f_grid, query, v.ellipse, note)
    z = np.asarray(fig.data[0].z, dtype=float)  # a NaN cell is drawn blank by Plotly
    assert np.isnan(z).sum() == v.grid_undefined
    assert fig.layout.title.text.endswith("(gaps: no sample in reach, f undefined)")


def test_the_unnormalised_query_weights_shown_are_not_clamped():
    """Repro (issue 10 item 5): with a large dot-product θ, five of nine weights of the panel
    read e^30/|S| (log α clamped at 30). The panel's weights against float64 by hand."""
    spec = KernelJobSpec(
        DatasetSpec("rings_2d", n=20, noise=0.3, seed=0),
        KernelSmootherConfig("dot_product", rank=2, normalised=False),
    )
    task = KernelTrainable(spec)
    tq, tk = np.diag([4.0, 4.0]), np.diag([4.0, 4.0])
    with torch.no_grad():
        task.model.theta_q.copy_(t(tq)), task.model.theta_k.copy_(t(tk))
    query = np.array([1.5, 1.5], dtype=np.float32)
    v = view_data(task, query)
    xs = task.data.x_train.astype(float)  # (n_train, 2)
    log_a = (tq @ query.astype(float)) @ (xs @ tk.T).T  # (n_train,)
    assert (log_a > 31).sum() >= 3, "the check needs several weights above the old clamp"
    want = np.exp(log_a) / len(xs)
    np.testing.assert_allclose(v.query_weights, want, rtol=1e-4)
    top = np.sort(v.query_weights)[-3:]
    assert len(set(top.tolist())) == 3, "a clamp would make the top weights equal (e^30/|S|)"
