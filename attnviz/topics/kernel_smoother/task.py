"""The kernel smoother as a Trainable: data + model + loss, and the numbers the page's views draw.

`KernelJobSpec` (frozen) is what the job pool runs: a worker calls its `build()`, which returns
a `KernelTrainable`; its `restore(snapshot)` gives one on the CPU with a snapshot's θ (the
protocol of attnviz.topics.live). The Trainable never changes the spec (the input dimension J
comes from the data into its own model config). Regression uses the squared error;
classification (labels ±1) the logistic loss log(1 + exp(−y f)). Leave-one-out predicts each
training point from the others, so the kernel cannot simply look itself up.

Where no sample is in reach of a point (n(x) = 0, boxcar or Epanechnikov), f is undefined (NaN):
losses and metrics average over the defined points only, and the views count the rest. If no
training point is defined there is nothing to train on: `loss` and `evaluate` raise
`NoSampleInReach` with the reason, which ends the run (never a NaN loss).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from attnviz.data.toy import DatasetSpec, ToyData, make_dataset
from attnviz.models.kernel_smoother import KernelSmoother, KernelSmootherConfig
from attnviz.training.devices import resolve_device
from attnviz.training.snapshot import Arrays, Snapshot


class NoSampleInReach(ValueError):
    """No training point has a sample within the kernel's reach: f is undefined everywhere."""


@dataclass(frozen=True, eq=False)
class KernelSnapshot(Snapshot):
    """θ at one step (tiny), from which the page redraws every view."""

    params: Arrays  # parameter name -> its array

    def tree(self) -> dict[str, Any]:
        return dict(self.params)  # a recording keeps the parameters at the top

    @classmethod
    def from_tree(cls, tree: dict[str, Any]) -> KernelSnapshot:
        return cls(dict(tree))


@dataclass(frozen=True)
class KernelJobSpec:
    data: DatasetSpec = field(default_factory=DatasetSpec)
    model: KernelSmootherConfig = field(default_factory=KernelSmootherConfig)  # dim: from data
    leave_one_out: bool = True
    device: str = "cpu"  # cpu, cuda or mps; falls back to cpu where absent

    def build(self) -> KernelTrainable:
        return KernelTrainable(self)

    snapshot_type = KernelSnapshot

    def restore(self, snapshot: KernelSnapshot) -> KernelTrainable:
        """The Trainable on the CPU with the snapshot's θ (the page's views are drawn from it)."""
        task = replace(self, device="cpu").build()
        task.load_snapshot(snapshot)
        return task


class KernelTrainable:
    """Fits θ of a KernelSmoother on a toy data set."""

    def __init__(self, spec: KernelJobSpec):
        self.spec = spec
        self.data: ToyData = make_dataset(spec.data)
        self.model_config = replace(spec.model, dim=self.data.dim)  # J from the data
        self.device = torch.device(resolve_device(spec.device))
        self.model = KernelSmoother(self.model_config).to(self.device)
        self.xs, self.ys, self.xv, self.yv = (
            torch.from_numpy(a).to(self.device)
            for a in (self.data.x_train, self.data.y_train, self.data.x_val, self.data.y_val)
        )
        self.n_train = len(self.xs)
        self.metric_name = "accuracy" if self.data.classification else "R²"

    def parameters(self) -> list[Tensor]:
        return self.model.trainable()

    def exclude_self(self, rows: Tensor) -> Tensor | None:
        """(len(rows), n_train) True at each query's own column when leave-one-out is on."""
        if not self.spec.leave_one_out:
            return None
        return rows[:, None] == torch.arange(self.n_train, device=rows.device)[None, :]

    def predict_train(self, rows: Tensor) -> tuple[Tensor, Tensor]:
        """(f at the training points `rows` (n,), NaN where undefined; defined (n,) bool)."""
        rows = rows.to(self.device)
        return self.model.fit(self.xs[rows], self.xs, self.ys, self.exclude_self(rows))

    def objective(self, pred: Tensor, target: Tensor, defined: Tensor | None = None) -> Tensor:
        """The mean loss over the defined points (NaN if there is none). pred, target (n,)."""
        ok = ~torch.isnan(pred) if defined is None else defined
        pred = torch.where(ok, pred, target)  # undefined points: a finite stand-in, masked below
        logistic = F.softplus(-target * pred * 4)  # on a score in [−1, 1] (classification)
        each = logistic if self.data.classification else (pred - target) ** 2  # (n,)
        count = ok.sum()
        if not count:
            return each.sum() * float("nan")
        return torch.where(ok, each, torch.zeros_like(each)).sum() / count

    def metric(self, pred: Tensor, target: Tensor) -> float:
        """Accuracy or R² over the defined points (NaN if there is none)."""
        ok = ~torch.isnan(pred)
        pred, target = pred[ok], target[ok]
        if not len(pred):
            return float("nan")
        if self.data.classification:
            return float(((pred >= 0) == (target > 0)).float().mean())
        total = float(((target - target.mean()) ** 2).sum()) or 1.0
        return 1.0 - float(((target - pred) ** 2).sum()) / total

    def undefined_reason(self) -> str:
        """Why no training point has a prediction, and what to change."""
        cfg = self.model_config
        width = float(self.model.log_width.detach().exp())
        loo = self.spec.leave_one_out
        return (
            f"no training point has a sample within reach of the {cfg.kernel} kernel "
            f"(h = {width:.3g}{', leave-one-out' if loo else ''}): f is undefined at all "
            f"{self.n_train} of them, so there is no loss to train. Widen the kernel"
            + (" or turn leave-one-out off." if loo else ".")
        )

    def loss(self, batch: Tensor) -> Tensor:
        """The batch's loss over its defined points; 0 (with a gradient) if it has none."""
        batch = batch.to(self.device)
        pred, defined = self.predict_train(batch)
        if defined.any():
            return self.objective(pred, self.ys[batch], defined)
        if not self.predict_train(torch.arange(self.n_train))[1].any():
            raise NoSampleInReach(self.undefined_reason())
        return torch.where(defined, pred, torch.zeros_like(pred)).sum()  # 0, no point to learn

    @torch.no_grad()
    def evaluate(self) -> dict[str, float]:
        """Losses and metrics over the defined points; raises NoSampleInReach if none is."""
        train_pred, defined = self.predict_train(torch.arange(self.n_train, device=self.device))
        if not defined.any():
            raise NoSampleInReach(self.undefined_reason())
        val_pred = self.model(self.xv, self.xs, self.ys)
        return {
            "train_loss": float(self.objective(train_pred, self.ys, defined)),
            "val_loss": float(self.objective(val_pred, self.yv)),
            "train_metric": self.metric(train_pred, self.ys),
            "val_metric": self.metric(val_pred, self.yv),
        }

    def snapshot(self) -> KernelSnapshot:
        """The learned parameters (tiny), from which the page redraws every view."""
        named = self.model.named_parameters()
        return KernelSnapshot({name: p.detach().cpu().numpy().copy() for name, p in named})

    def load_snapshot(self, snapshot: KernelSnapshot) -> None:
        with torch.no_grad():
            for name, p in self.model.named_parameters():
                if name in snapshot.params:
                    p.copy_(torch.as_tensor(snapshot.params[name]))


def query_grid(data: ToyData, steps: int = 60) -> tuple[np.ndarray, list[np.ndarray]]:
    """Points covering the data (n, J) for drawing f, and the 1-D axes of the grid."""
    both = np.concatenate([data.x_train, data.x_val])
    lo, hi = both.min(0), both.max(0)
    pad = 0.1 * (hi - lo + 1e-6)
    axes = [
        np.linspace(lo[j] - pad[j], hi[j] + pad[j], steps if data.dim == 1 else steps // 2)
        for j in range(data.dim)
    ]
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.ravel() for m in mesh], 1).astype(np.float32), axes


def predict(task: KernelTrainable, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(f(x) (n,) NaN where undefined, weights (n, n_train), defined (n,) bool) for query
    points against all training samples."""
    with torch.no_grad():
        q = torch.from_numpy(np.asarray(x, dtype=np.float32)).to(task.device)
        w, defined = task.model.weights_and_defined(q, task.xs)
        f = task.model.fit(q, task.xs, task.ys)[0]
    return f.cpu().numpy(), w.float().cpu().numpy(), defined.cpu().numpy()


@dataclass
class ViewData:
    """The numbers behind the page's views for one state of θ."""

    grid: np.ndarray  # (G, J) points where f is drawn
    axes: list[np.ndarray]
    f_grid: np.ndarray  # (G,) NaN where f is undefined or past float32 (a gap in the figure)
    query_weights: np.ndarray  # (n_train,) the chosen query's weights
    train_weights: np.ndarray  # (n_train, n_train) with leave-one-out if on
    order: np.ndarray  # sorting of the training points for the matrix view
    ellipse: np.ndarray | None  # points of ‖θ(x − x_s)‖ = 1 around the query (Mahalanobis only)
    grid_undefined: int = 0  # grid points with no sample in reach (n(x) = 0)
    grid_overflow: int = 0  # grid points where f is defined but past the float32 range
    train_undefined: int = 0  # training points left out of the loss (n(x) = 0)
    query_defined: bool = True  # the query has a sample in reach
    normalised: bool = True  # the weights are α/n(x) (else α/|S|)


def view_data(task: KernelTrainable, query: np.ndarray) -> ViewData:
    """f over a grid covering the data, the query's weights (query (J,)), the training weights,
    the metric ellipse, and the counts of undefined points."""
    grid, axes = query_grid(task.data)
    f_grid, _, grid_ok = predict(task, grid)
    overflow = grid_ok & ~np.isfinite(f_grid)
    f_grid = np.where(np.isfinite(f_grid), f_grid, np.nan)  # (G,)
    _, wq, query_ok = predict(task, query[None, :])
    with torch.no_grad():
        rows = torch.arange(task.n_train, device=task.device)
        train_w, train_ok = task.model.weights_and_defined(
            task.xs, task.xs, task.exclude_self(rows)
        )
        train_w = train_w.float().cpu().numpy()
        train_undefined = int((~train_ok).sum())
    x = task.data.x_train
    order = np.argsort(
        x[:, 0]
        if task.data.dim == 1
        else np.arctan2(x[:, 1] - x[:, 1].mean(), x[:, 0] - x[:, 0].mean())
    )
    ellipse = None
    if task.spec.model.kernel == "mahalanobis":
        reach = float(np.ptp(grid, axis=0).max())
        ellipse = metric_ellipse(task.model.theta.detach().cpu().numpy(), query, reach)
    return ViewData(
        grid,
        axes,
        f_grid,
        wq[0],
        train_w,
        order,
        ellipse,
        grid_undefined=int((~grid_ok).sum()),
        grid_overflow=int(overflow.sum()),
        train_undefined=train_undefined,
        query_defined=bool(query_ok[0]),
        normalised=task.model_config.normalised,
    )


def metric_ellipse(theta: np.ndarray, center: np.ndarray, reach: float) -> np.ndarray:
    """Points d + center with ‖θ d‖ = 1 (an ellipse; a band if θ has rank < dim), clipped to
    `reach`."""
    m = theta.T @ theta  # (J, J)
    vals, vecs = np.linalg.eigh(m)
    radii = 1 / np.sqrt(np.maximum(vals, 1 / reach**2))
    if theta.shape[1] == 1:
        return center[None, :] + np.array([[-radii[0]], [radii[0]]])
    t = np.linspace(0, 2 * np.pi, 120)
    circle = np.stack([np.cos(t), np.sin(t)], 1)  # (120, 2)
    return center[None, :] + (circle * radii[None, :]) @ vecs.T
