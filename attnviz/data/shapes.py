"""Seeded scenes of coloured shapes on a dark background, and image tasks built from them.

A scene is a list of `Shape`s (kind, colour, centre and size in pixels); `render` paints it with
NumPy alone (anti-aliased by supersampling), `random_scene` places shapes that never overlap, and
`make_shape_task` / `make_shape_scenes` build balanced classification sets whose answer sits in
one region of the image, so attention over patches has something to find:

- "which": one shape -> its kind;
- "where": a circle and one other shape -> the quadrant of the circle's centre;
- "count": 1, 2 or 3 shapes -> how many.

Geometry: pixel (row i, column j) covers [j, j+1] x [i, i+1]; a shape of size s fills at most
the box [cx - s, cx + s] x [cy - s, cy + s] (circle radius s, square half-side 0.85 s, triangle
apex-up in the box, cross with arms of half-width s/3), so boxes 1 px apart share no pixel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

KINDS = ("circle", "square", "triangle", "cross")
COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (0.95, 0.20, 0.20),
    "green": (0.20, 0.85, 0.30),
    "blue": (0.30, 0.45, 1.00),
    "yellow": (0.95, 0.90, 0.20),
    "magenta": (0.90, 0.30, 0.90),
    "cyan": (0.20, 0.85, 0.90),
}
BACKGROUND = (0.0, 0.0, 0.0)  # black: every colour above is bright on it
QUADRANTS = ("top left", "top right", "bottom left", "bottom right")
SHAPE_TASK_CLASSES: dict[str, tuple[str, ...]] = {
    "which": KINDS,
    "where": QUADRANTS,
    "count": ("1", "2", "3"),
}
MIN_SIZE, MAX_SIZE = 4.0, 7.0  # default half-extent in pixels: visible at 32 x 32, three fit
GAP = 1.0  # pixels between the boxes of two shapes (no pixel is shared)
SUPERSAMPLE = 4  # sub-samples per pixel side for anti-aliasing
WHERE_MARGIN = 2.0  # "where": the circle's centre is at least this far from both midlines


@dataclass(frozen=True)
class Shape:
    kind: str  # one of KINDS
    colour: str  # a key of COLOURS
    cx: float  # centre, pixels from the left edge
    cy: float  # centre, pixels from the top edge
    size: float  # half-extent in pixels (circle radius)


def _inside(kind: str, dx: np.ndarray, dy: np.ndarray, s: float) -> np.ndarray:
    """Boolean mask of sample points (offsets dx, dy from the centre) inside a shape of size s."""
    if kind == "circle":
        return dx**2 + dy**2 <= s**2
    if kind == "square":
        return (np.abs(dx) <= 0.85 * s) & (np.abs(dy) <= 0.85 * s)
    if kind == "triangle":  # apex (0, -s), base from (-s, s) to (s, s)
        return (dy <= s) & (np.abs(dx) <= (dy + s) / 2)
    if kind == "cross":
        arm = s / 3
        box = (np.abs(dx) <= s) & (np.abs(dy) <= s)
        return box & ((np.abs(dx) <= arm) | (np.abs(dy) <= arm))
    raise ValueError(f"unknown shape kind {kind!r}; choose one of {', '.join(KINDS)}")


def coverage(shape: Shape, size: int) -> np.ndarray:
    """(size, size) float32 in [0, 1]: the fraction of each pixel the shape covers. Sampled only
    over the pixels of the shape's box (it covers nothing outside), with the sub-sample
    coordinates a whole-image grid would give them: the same values, ~10x less work at 32 px."""
    k = SUPERSAMPLE
    out = np.zeros((size, size), np.float32)
    (x0, x1), (y0, y1) = (_span(centre, shape.size, size) for centre in (shape.cx, shape.cy))
    if x0 >= x1 or y0 >= y1:
        return out
    dx = ((np.arange(x0 * k, x1 * k) + 0.5) / k)[None, :] - shape.cx  # (1, w*k)
    dy = ((np.arange(y0 * k, y1 * k) + 0.5) / k)[:, None] - shape.cy  # (h*k, 1)
    hits = _inside(shape.kind, dx, dy, shape.size).astype(np.float32)  # (h*k, w*k)
    out[y0:y1, x0:x1] = hits.reshape(y1 - y0, k, x1 - x0, k).mean(axis=(1, 3))
    return out


def _span(centre: float, half: float, size: int) -> tuple[int, int]:
    """The pixels [first, end) that the box [centre - half, centre + half] touches, in the image."""
    return max(0, int(np.floor(centre - half)) - 1), min(size, int(np.ceil(centre + half)) + 1)


def render(
    shapes: Sequence[Shape],
    size: int,
    noise: float = 0.0,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """(3, size, size) float32 in [0, 1]: the shapes painted in order on the dark background,
    plus Gaussian pixel noise of standard deviation `noise` (clipped; rng defaults to seed 0)."""
    image = np.empty((3, size, size), np.float32)  # (C, H, W)
    image[:] = np.asarray(BACKGROUND, np.float32)[:, None, None]
    for shape in shapes:
        if shape.colour not in COLOURS:
            raise ValueError(f"unknown colour {shape.colour!r}; choose one of {', '.join(COLOURS)}")
        alpha = coverage(shape, size)[None]  # (1, H, W)
        colour = np.asarray(COLOURS[shape.colour], np.float32)[:, None, None]  # (3, 1, 1)
        image = image * (1 - alpha) + colour * alpha
    if noise > 0:
        rng = rng if rng is not None else np.random.default_rng(0)
        image = image + rng.normal(0.0, noise, image.shape).astype(np.float32)
    return np.clip(image, 0.0, 1.0).astype(np.float32)


def overlaps(a: Shape, b: Shape, gap: float = GAP) -> bool:
    """True when the boxes of a and b are closer than `gap` pixels (they may share a pixel)."""
    reach = a.size + b.size + gap
    return abs(a.cx - b.cx) < reach and abs(a.cy - b.cy) < reach


def _draw(rng: np.random.Generator, size: int, kinds, min_size: float, max_size: float) -> Shape:
    """One shape of a random kind from `kinds`, colour and size, wholly inside the image."""
    s = float(rng.uniform(min_size, max_size))
    lo, hi = s + 0.5, size - s - 0.5  # half a pixel of margin to the edge
    if hi < lo:
        raise ValueError(f"a shape of size {s:.1f} does not fit in {size} x {size} pixels")
    cx, cy = rng.uniform(lo, hi, 2)
    kind = str(kinds[rng.integers(len(kinds))])
    colour = str(list(COLOURS)[rng.integers(len(COLOURS))])
    return Shape(kind, colour, float(cx), float(cy), s)


def random_scene(
    rng: np.random.Generator,
    size: int,
    n_shapes: int,
    kinds: Sequence[str] = KINDS,
    min_size: float = MIN_SIZE,
    max_size: float = MAX_SIZE,
    no_overlap: bool = True,
    avoid: Sequence[Shape] = (),
) -> list[Shape]:
    """n_shapes new shapes (kinds drawn from `kinds`) inside a size x size image; with no_overlap,
    none overlaps another or any shape of `avoid` (which is not returned)."""
    for _ in range(200):  # restart the scene when a shape finds no free place
        scene: list[Shape] = []
        for _ in range(n_shapes):
            for _ in range(100):
                shape = _draw(rng, size, kinds, min_size, max_size)
                if not no_overlap or not any(overlaps(shape, o) for o in [*avoid, *scene]):
                    scene.append(shape)
                    break
            else:
                break
        if len(scene) == n_shapes:
            return scene
    raise ValueError(f"could not place {n_shapes} non-overlapping shapes in {size} x {size}")


def quadrant(shape: Shape, size: int) -> int:
    """Index into QUADRANTS of the quadrant holding the shape's centre."""
    return 2 * int(shape.cy >= size / 2) + int(shape.cx >= size / 2)


def _where_scene(rng: np.random.Generator, size: int, label: int) -> list[Shape]:
    """A circle whose centre is in quadrant `label` (clear of the midlines) and one distractor."""
    for _ in range(1000):
        (circle,) = random_scene(rng, size, 1, kinds=("circle",))
        clear = min(abs(circle.cx - size / 2), abs(circle.cy - size / 2)) >= WHERE_MARGIN
        if clear and quadrant(circle, size) == label:
            others = tuple(k for k in KINDS if k != "circle")
            return [circle, *random_scene(rng, size, 1, kinds=others, avoid=[circle])]
    raise ValueError(f"could not place a circle in the {QUADRANTS[label]} of {size} x {size}")


def _scene_for(task: str, label: int, rng: np.random.Generator, size: int) -> list[Shape]:
    """One scene whose answer to `task` is class `label`."""
    if task == "which":
        return random_scene(rng, size, 1, kinds=(KINDS[label],))
    if task == "where":
        return _where_scene(rng, size, label)
    return random_scene(rng, size, label + 1)  # "count": label 0 is one shape


def make_shape_scenes(
    task: str, n: int, seed: int, size: int = 32
) -> tuple[list[list[Shape]], np.ndarray, tuple[str, ...]]:
    """(n scenes, (n,) int64 labels, class names) for task "which", "where" or "count".

    Classes are balanced: every class appears n // n_classes or one more times, in seeded order.
    """
    if task not in SHAPE_TASK_CLASSES:
        raise ValueError(
            f"unknown shape task {task!r}; choose one of {', '.join(SHAPE_TASK_CLASSES)}"
        )
    names = SHAPE_TASK_CLASSES[task]
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n) % len(names)).astype(np.int64)  # (n,)
    scenes = [_scene_for(task, int(label), rng, size) for label in labels]
    return scenes, labels, names


def make_shape_task(
    task: str, n: int, seed: int, size: int = 32
) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """((n, 3, size, size) float32 images in [0, 1], (n,) int64 labels, class names)."""
    scenes, labels, names = make_shape_scenes(task, n, seed, size)
    images = np.zeros((n, 3, size, size), np.float32)  # (N, C, H, W)
    for i, scene in enumerate(scenes):
        images[i] = render(scene, size)
    return images, labels, names
