"""A person's own image for the vision page: checked, decoded and shaped like the training data.

Checks run before any pixel is decoded: the file's size (MAX_UPLOAD_BYTES), its format (PNG or
JPEG only, read from the header), its pixel count (MAX_PIXELS, so a decompression bomb is refused
from its header) and a least size (MIN_SIDE). Then: EXIF orientation, any mode (CMYK, palette,
16-bit, with alpha: alpha is laid over the background), grey or RGB, and, for digit models,
MNIST's preparation (light ink on dark, the digit cropped, centred and scaled to fill 20/28 of the
frame). Every problem is a ValueError whose message says what is wrong, in a whole sentence.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_UPLOAD_BYTES = 10 * 1024 * 1024
MAX_PIXELS = 25_000_000
MIN_SIDE = 8
FORMATS = ("PNG", "JPEG")
DIGIT_FILL = 20 / 28  # MNIST: a 20 × 20 digit centred in 28 × 28
INK = 0.2  # a pixel brighter than this (after inverting a light page) is ink


def open_checked(data: bytes) -> Image.Image:
    """The image in `data`, its header checked; pixels not yet decoded."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"the file is {len(data) / 2**20:.1f} MB; the limit is 10 MB")
    try:  # PIL itself refuses a decompression bomb (far past MAX_PIXELS) from the header
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise ValueError(
            f"it has far more pixels than the limit of {MAX_PIXELS / 1e6:.0f} megapixels"
        ) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise ValueError("it is not a PNG or JPEG image (or it is damaged)") from None
    if image.format not in FORMATS:
        raise ValueError(f"it is a {image.format} image; upload a PNG or JPEG")
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise ValueError(
            f"it is {width}×{height} = {width * height / 1e6:.1f} megapixels; the limit is "
            f"{MAX_PIXELS / 1e6:.0f}"
        )
    if min(width, height) < MIN_SIDE:
        raise ValueError(
            f"it is {width}×{height} pixels; an image must be at least {MIN_SIDE}×{MIN_SIDE}"
        )
    return image


def to_rgb(image: Image.Image, background: tuple[int, int, int] | None = None) -> np.ndarray:
    """(H, W, 3) float in [0, 1] from any mode; transparent parts show `background` (None: white,
    or black when what is drawn is light, so a white digit on transparency stays visible)."""
    try:
        image = ImageOps.exif_transpose(image)
        if image.mode in ("I;16", "I;16B", "I;16L", "I"):
            image = image.point(lambda v: v / 256).convert("L")
        has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
        image = image.convert("RGBA" if has_alpha else "RGB")
    except Exception as err:  # a damaged file fails in many ways inside PIL; all mean "unusable"
        raise ValueError(f"the image could not be decoded ({type(err).__name__})") from None
    if image.mode == "RGBA":
        if background is None:
            pixels = np.asarray(image, dtype=np.float32)
            drawn = pixels[..., 3] > 127
            light = drawn.any() and pixels[drawn][:, :3].mean() > 127
            background = (0, 0, 0) if light else (255, 255, 255)
        ground = Image.new("RGBA", image.size, (*background, 255))
        image = Image.alpha_composite(ground, image).convert("RGB")
    return np.asarray(image, dtype=np.float32) / 255.0


def resize(pixels: np.ndarray, size: int) -> np.ndarray:
    """(H, W, C) in [0, 1] -> (size, size, C), squashed to a square with a smooth filter."""
    chans = [
        np.asarray(Image.fromarray(pixels[..., c]).resize((size, size), Image.Resampling.LANCZOS))
        for c in range(pixels.shape[-1])
    ]
    return np.clip(np.stack(chans, -1), 0, 1)


def as_digit(grey: np.ndarray, size: int) -> np.ndarray:
    """(H, W) grey in [0, 1] -> (size, size) light ink on dark, cropped to the ink, centred and
    scaled as MNIST's digits are."""
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    if border.mean() > 0.5:  # a dark digit on light paper
        grey = 1.0 - grey
    ink = grey > INK
    if not ink.any():
        raise ValueError("the image is blank: draw or photograph a digit")
    rows, cols = np.flatnonzero(ink.any(1)), np.flatnonzero(ink.any(0))
    crop = grey[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    side = max(crop.shape)
    square = np.zeros((side, side), np.float32)
    top, left = (side - crop.shape[0]) // 2, (side - crop.shape[1]) // 2
    square[top : top + crop.shape[0], left : left + crop.shape[1]] = crop
    inner = max(1, round(size * DIGIT_FILL))
    digit = resize(square[..., None], inner)[..., 0]
    out = np.zeros((size, size), np.float32)
    start = (size - inner) // 2
    out[start : start + inner, start : start + inner] = digit
    return out


def read_image(data: bytes, size: int, channels: int, *, digit_style: bool = False) -> np.ndarray:
    """Uploaded bytes -> (channels, size, size) float32 in [0, 1], shaped like the training data
    (see the module docstring). Raises ValueError saying what is wrong."""
    image = open_checked(data)
    if channels not in (1, 3) or size < 1:
        raise ValueError(f"a model input of {channels} channels and {size} pixels is not possible")
    rgb = to_rgb(image)  # (H, W, 3)
    if channels == 1:
        grey = rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)  # luminance (H, W)
        if digit_style:
            return as_digit(grey, size)[None].astype(np.float32)
        return resize(grey[..., None], size).transpose(2, 0, 1).astype(np.float32)
    return resize(rgb, size).transpose(2, 0, 1).astype(np.float32)
