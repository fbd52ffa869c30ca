"""Photos for the real ViT: scikit-image's bundled sample photos, read as files.

The `scikit-image` wheel ships its sample images inside the package (`skimage/data/*.png`), so
they are on disk once it is installed; it is found with `importlib.util.find_spec` and never
imported (it is installed with --no-deps, from requirements-nodeps.txt, so its own dependencies
are not needed). Sources, as scikit-image's docstrings give them: the astronaut (NASA) and the
rocket (SpaceX) are in the public domain, the cat (Chelsea) and the coffee are CC0 photos by
scikit-image's contributors, and the motorcycle is the left picture of the Middlebury
2014 stereo benchmark (Scharstein et al., Middlebury College), as scikit-image redistributes it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
from PIL import Image

PACKAGE = "skimage"
PIN = "scikit-image==0.26.0"
# the name a person picks -> (file in skimage/data, what it shows)
PHOTOS = {
    "cat": ("chelsea.png", "Chelsea the cat, 451 × 300 px"),
    "motorcycle": ("motorcycle_left.png", "a motorcycle in a studio, 741 × 500 px"),
    "astronaut": ("astronaut.png", "the astronaut Eileen Collins, 512 × 512 px"),
    "coffee": ("coffee.png", "a cup of coffee on a saucer, 600 × 400 px"),
    "rocket": ("rocket.jpg", "a rocket on its launch pad, 640 × 427 px"),
}
# the object in each photo, as the 224 × 224 square the model sees cut into 16 × 16 patches of
# 14 px: (what it is, (first row, last row, first column, last column)), drawn by hand on the grid
OBJECTS = {
    "cat": ("the cat's eyes and nose", (4, 13, 3, 12)),
    "motorcycle": ("the motorcycle", (4, 14, 2, 14)),
    "astronaut": ("the astronaut", (1, 15, 1, 11)),
    "coffee": ("the cup", (0, 8, 4, 11)),
    "rocket": ("the rocket", (4, 15, 7, 8)),
}
MISSING = (
    f"The sample photos are not installed: run `pip install --no-deps {PIN}` (the README's "
    "install command does; it ships scikit-image's sample photos)."
)


class PhotosMissing(ValueError):
    """scikit-image (its bundled photos) is not installed."""


def photo_path(name: str) -> Path:
    """The file of the bundled photo `name` (one of PHOTOS); PhotosMissing when not installed."""
    if name not in PHOTOS:
        raise ValueError(f"there is no bundled photo {name!r}; the photos are {', '.join(PHOTOS)}")
    spec = importlib.util.find_spec(PACKAGE)
    for root in list(spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "data" / PHOTOS[name][0]
        if path.is_file():
            return path
    raise PhotosMissing(MISSING)


def load_photo(name: str) -> np.ndarray:
    """The bundled photo `name` as (H, W, 3) uint8."""
    with Image.open(photo_path(name)) as image:
        return np.asarray(image.convert("RGB"))
