"""Labelled toy data for the kernel-smoother page: 1-D/2-D regression, 2-D classification, rings.

Every set is drawn from a seed and split into train and validation. Classification labels are
±1 (so that a kernel average of labels is a score in [−1, 1]).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DATASETS = {
    "sine_1d": "1-D regression: y = 2 sin x + x + ε (d2l's example)",
    "surface_2d": "2-D regression: y = sin x₁ · cos x₂ + ε",
    "blobs_2d": "2-D classification: two overlapping clouds",
    "rings_2d": "2-D classification: a ring around a disc (scikit-learn make_circles)",
    "moons_2d": "2-D classification: two moons (scikit-learn make_moons)",
    "iris_2d": "2-D classification: iris sepal length/width, setosa vs the rest (bundled)",
    "diabetes_1d": "1-D regression: diabetes progression vs body-mass index "
    "(bundled, standardised)",
}


@dataclass(frozen=True)
class DatasetSpec:
    name: str = "sine_1d"
    n: int = 80  # training samples; validation gets half as many
    noise: float = 0.3
    seed: int = 0


@dataclass
class ToyData:
    x_train: np.ndarray  # (n, J)
    y_train: np.ndarray  # (n,)
    x_val: np.ndarray
    y_val: np.ndarray
    classification: bool

    @property
    def dim(self) -> int:
        return self.x_train.shape[1]


def make_dataset(spec: DatasetSpec) -> ToyData:
    """Draw the named set; raises ValueError with the known names if it is unknown."""
    if spec.name not in DATASETS:
        raise ValueError(f"unknown data set {spec.name!r}; choose one of {', '.join(DATASETS)}")
    rng = np.random.default_rng(spec.seed)
    total = spec.n + max(spec.n // 2, 2)
    x, y, classification = _draw(spec, total, rng)
    order = rng.permutation(len(x))
    x, y = x[order].astype(np.float32), y[order].astype(np.float32)
    n = min(spec.n, len(x) * spec.n // total)  # a small bundled table keeps the 2:1 split
    return ToyData(x[:n], y[:n], x[n:], y[n:], classification)


def _draw(spec: DatasetSpec, total: int, rng: np.random.Generator):
    seed = int(rng.integers(1 << 31))
    if spec.name == "sine_1d":
        x = np.sort(rng.uniform(0, 5, total))[:, None]
        return x, 2 * np.sin(x[:, 0]) + x[:, 0] + rng.normal(0, spec.noise, total), False
    if spec.name == "surface_2d":
        x = rng.uniform(-3, 3, (total, 2))
        return x, np.sin(x[:, 0]) * np.cos(x[:, 1]) + rng.normal(0, spec.noise, total), False
    from sklearn import datasets  # lazy (≈2 s): only the sets below need scikit-learn

    if spec.name == "diabetes_1d":
        return (*_bundled(datasets.load_diabetes(), [2], total, spec.noise, rng), False)
    if spec.name == "blobs_2d":
        x, y = datasets.make_blobs(
            total, centers=[[-1, -1], [1, 1]], cluster_std=1 + spec.noise, random_state=seed
        )
    elif spec.name == "rings_2d":
        x, y = datasets.make_circles(total, noise=spec.noise / 3, factor=0.4, random_state=seed)
        x = x * 2
    elif spec.name == "moons_2d":
        x, y = datasets.make_moons(total, noise=spec.noise / 2, random_state=seed)
    else:  # iris: sepal length/width, setosa (1) vs the rest (0)
        x, target = _bundled(datasets.load_iris(), [0, 1], total, spec.noise, rng)
        y = (target == 0).astype(float)
    return x, 2.0 * y - 1.0, True


def _bundled(table, columns: list[int], total: int, noise: float, rng: np.random.Generator):
    """A random subset of a scikit-learn bundled table: standardised columns (jittered by
    `noise` / 10 so that repeated values separate) and the target (standardised if continuous)."""
    x_all, target = table.data[:, columns], table.target.astype(float)
    pick = rng.choice(len(x_all), size=min(total, len(x_all)), replace=False)
    x = (x_all[pick] - x_all.mean(0)) / x_all.std(0)
    y = target[pick]
    if len(np.unique(target)) > 10:
        y = (y - target.mean()) / target.std()
    return x + rng.normal(0, noise * 0.1, x.shape), y
