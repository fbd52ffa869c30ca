"""A person's own image, for the vision and captioning pages: checked, decoded and shaped like the
training data, at a bounded cost whatever the file says about itself.

Checks run before any pixel is decoded, from the file's header: its size (MAX_UPLOAD_MB, the
server's own limit), its format (PNG or JPEG only: other decoders are never tried), its pixel count
(MAX_PIXELS, so a decompression bomb or a tiny file declaring a huge size is refused), its shape
(MAX_ASPECT, MIN_SIDE), its number of pieces (MAX_SEGMENTS: PNG chunks or JPEG markers, which PIL
reads one by one in Python) and, for a JPEG, its number of scans (MAX_SCANS: each scan is a pass
over the whole image). Decoding then stays small: a JPEG decodes at a reduced scale where it can,
and every image is shrunk in PIL (8-bit, box filter) to at most WORK_SIDE pixels a side before any
float array is made, so every array derived from an upload, the digit's square included, is at most
WORK_SIDE × WORK_SIDE. One upload costs at most about 4 bytes a declared pixel (the decoded image:
about 110 MB measured at MAX_PIXELS) and under 1 s (tests/engine/test_hostile_uploads.py).

Then: EXIF orientation, any mode (CMYK, palette, 16-bit, with alpha: alpha is laid over the
background), grey or RGB, and, for digit models, MNIST's preparation (light ink on dark, the digit
cropped, centred and scaled to fill 20/28 of the frame). An animated PNG gives its first frame.
Every problem is a SceneInputError (a ValueError) whose message says what is wrong, in a whole
sentence.
"""

from __future__ import annotations

import io
import math
import re

import numpy as np
from PIL import Image

from attnviz.topics.scene import SceneInputError

MAX_UPLOAD_MB = 5  # = server.maxUploadSize in .streamlit/config.toml (a test checks they agree)
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024  # Streamlit's megabyte
MAX_PIXELS = 25_000_000  # declared width × height
MAX_ASPECT = 10  # the longer side at most 10 × the shorter (the model squashes to a square)
MIN_SIDE = 8
MAX_SEGMENTS = 20_000  # PNG chunks, or JPEG segments before the first scan (PIL reads each)
MAX_SCANS = 50  # SOS markers in a JPEG (a progressive photo has about 10; each costs a pass)
WORK_SIDE = 1024  # every array derived from an upload is at most this many pixels a side
STRIP_PIXELS = 2**20  # a large image is shrunk a strip of about this many pixels at a time
MAX_MODEL_SIDE = 512  # the largest model input an upload is shaped to
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MARKER = re.compile(rb"\xff+")  # a JPEG marker's leading byte, with fill bytes
DECODERS = ("PNG", "JPEG")  # the only decoders PIL may try on an upload
FORMATS = ("PNG", "JPEG", "MPO")  # MPO: a JPEG with extra pictures (many phones); its first is used
OTHER_FORMATS = (  # (leading bytes, name): named in the message, never decoded
    (b"GIF8", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"BM", "BMP"),
    (b"\x00\x00\x01\x00", "ICO"),
)
ORIENTATION = 0x0112  # the EXIF tag
TRANSPOSE = {  # EXIF orientation -> the transpose that makes the picture upright
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
DIGIT_FILL = 20 / 28  # MNIST: a 20 × 20 digit centred in 28 × 28
INK = 0.2  # a pixel brighter than this (after inverting a light page) is ink
LUMINANCE = np.array([0.299, 0.587, 0.114], dtype=np.float32)


def _other_format(data: bytes) -> str | None:
    """The name of a common image format that is not PNG or JPEG, from its leading bytes."""
    for lead, name in OTHER_FORMATS:
        if data.startswith(lead):
            return name
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"mif1", b"avif"):
        return "HEIC/AVIF"
    return None


def _open(data: bytes) -> Image.Image:
    """PIL's lazy image (header read, no pixel decoded) of a PNG or JPEG file."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise SceneInputError(
            f"the file is {len(data):,} bytes; the limit is {MAX_UPLOAD_MB} MB "
            f"({MAX_UPLOAD_BYTES:,} bytes)"
        )
    other = _other_format(data)
    if other:
        raise SceneInputError(f"it is a {other} image; upload a PNG or JPEG")
    png = data.startswith(PNG_SIGNATURE)
    if (png or data.startswith(b"\xff\xd8")) and _segments(data, png) > MAX_SEGMENTS:
        raise SceneInputError(  # counted before PIL reads them, one by one, in Python
            f"it is split into more than {MAX_SEGMENTS:,} pieces (chunks or markers); save it "
            "again as an ordinary image"
        )
    try:  # (PIL only warns from 89 to 179 megapixels; open_checked refuses those itself)
        return Image.open(io.BytesIO(data), formats=DECODERS)
    except Image.DecompressionBombError:
        raise SceneInputError(
            f"it declares far more pixels than the limit of {MAX_PIXELS / 1e6:.0f} megapixels"
        ) from None
    except Exception:  # a damaged header fails in many ways inside PIL; all mean "unusable"
        raise SceneInputError("it is not a PNG or JPEG image (or it is damaged)") from None


def _segments(data: bytes, png: bool) -> int:
    """How many chunks a PNG has, or segments (and fill bytes) a JPEG has before its first scan
    (PIL reads each in Python), counted up to about MAX_SEGMENTS from their lengths alone."""
    count, at = 0, 8 if png else 2
    while count <= MAX_SEGMENTS and at + 4 <= len(data):
        if png:
            kind = data[at + 4 : at + 8]
            at += 12 + int.from_bytes(data[at : at + 4], "big")  # length, type, body, CRC
        else:
            marker = MARKER.match(data, at)  # 0xFF, and any fill bytes 0xFF before the marker
            count += marker.end() - at - 1 if marker else 0  # PIL reads each fill byte too
            if marker is None or marker.end() >= len(data):
                break  # not a marker: PIL will say the file is damaged
            kind, at = data[marker.end()], marker.end() + 1
            if not (kind == 0x01 or 0xD0 <= kind <= 0xD8):  # these stand alone
                at += int.from_bytes(data[at : at + 2], "big")
        count += 1
        if kind in (b"IEND", 0xDA, 0xD9):
            break
    return count


def open_checked(data: bytes) -> Image.Image:
    """The image in `data`, its header checked (see the module docstring); pixels not yet
    decoded. Raises SceneInputError saying what is wrong."""
    image = _open(data)
    if image.format not in FORMATS:
        raise SceneInputError(f"it is a {image.format} image; upload a PNG or JPEG")
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise SceneInputError(
            f"it is {width}×{height} = {width * height / 1e6:.1f} megapixels; the limit is "
            f"{MAX_PIXELS / 1e6:.0f}"
        )
    if min(width, height) < MIN_SIDE:
        raise SceneInputError(
            f"it is {width}×{height} pixels; an image must be at least {MIN_SIDE}×{MIN_SIDE}"
        )
    ratio = max(width, height) / min(width, height)
    if ratio > MAX_ASPECT:
        shown = f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.1f}"
        raise SceneInputError(
            f"it is {width}×{height} pixels: its longer side is {shown} times its shorter; the "
            f"limit is {MAX_ASPECT} times (crop it closer to what it shows)"
        )
    scans = data.count(b"\xff\xda") if image.format != "PNG" else 0
    if scans > MAX_SCANS:
        raise SceneInputError(
            f"it is a JPEG of {scans:,} scans; the limit is {MAX_SCANS} (save it again as an "
            "ordinary JPEG)"
        )
    return image


def _plain(image: Image.Image) -> Image.Image:
    """`image` (or a strip of it) in mode L, LA, RGB or RGBA: 16 or 32 bits of grey keep their
    top 8 bits of 16; a palette or a transparent colour become RGB(A); 1-bit becomes L."""
    if image.mode.startswith("I"):  # (a transparent grey level of 16 bits is not kept)
        grey = np.asarray(image, dtype=np.float32) / 256
        return Image.fromarray(np.clip(grey, 0, 255).astype(np.uint8))
    if image.mode in ("P", "PA") or "transparency" in image.info:
        alpha = image.mode == "PA" or "transparency" in image.info
        return image.convert("RGBA" if alpha else "RGB")
    if image.mode == "1":
        return image.convert("L")
    if image.mode not in ("L", "LA", "RGB", "RGBA"):
        return image.convert("RGBA" if "A" in image.mode else "RGB")
    return image


def _shrink(image: Image.Image, side: int = WORK_SIDE) -> Image.Image:
    """`image` in a plain mode (see `_plain`) with its longer side at most `side`, each new
    pixel the mean of a block. A large image is done in strips of about STRIP_PIXELS, so no
    full-size copy of it is made (PIL premultiplies a whole RGBA image to reduce it)."""
    factor = math.ceil(max(image.size) / side)
    if factor <= 1:
        return _plain(image)
    width, height = image.size
    rows = max(1, STRIP_PIXELS // (width * factor)) * factor  # a whole number of blocks
    strips = [
        _plain(image.crop((0, top, width, min(height, top + rows)))).reduce(factor)
        for top in range(0, height, rows)
    ]
    out = Image.new(strips[0].mode, (-(-width // factor), -(-height // factor)))
    for i, strip in enumerate(strips):
        out.paste(strip, (0, i * rows // factor))
    return out


def decode(image: Image.Image) -> Image.Image:
    """The pixels of an image from `open_checked`: upright, at most WORK_SIDE a side, in mode
    L, LA, RGB or RGBA. Raises SceneInputError when the file is damaged or cut short."""
    try:
        orientation = image.getexif().get(ORIENTATION, 1)
    except Exception:  # damaged EXIF: the picture itself may still be fine, as stored
        orientation = 1
    try:
        if image.format in ("JPEG", "MPO"):  # decode at 1/2, 1/4 or 1/8 scale where that is enough
            image.draft(image.mode, (WORK_SIDE, WORK_SIDE))
        image.load()
        image = _shrink(image)
        return image.transpose(TRANSPOSE[orientation]) if orientation in TRANSPOSE else image
    except Exception:  # a damaged file fails in many ways inside PIL; all mean "unusable"
        raise SceneInputError(
            "the image could not be decoded: the file is damaged or cut short"
        ) from None


def to_rgb(image: Image.Image, background: tuple[int, int, int] | None = None) -> np.ndarray:
    """(H, W, 3) float in [0, 1] from an image (a large one is shrunk to WORK_SIDE first, see
    `decode`); transparent parts show `background` (None: white, or black when what is drawn is
    light, so a white digit on transparency stays visible)."""
    image = _shrink(image)
    if image.mode in ("LA", "RGBA"):
        image = image.convert("RGBA")
        if background is None:
            drawn = np.asarray(image.getchannel("A")) > 127
            light = drawn.any() and np.asarray(image.convert("RGB"))[drawn].mean() > 127
            background = (0, 0, 0) if light else (255, 255, 255)
        ground = Image.new("RGBA", image.size, (*background, 255))
        image = Image.alpha_composite(ground, image)
    return np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0


def resize(pixels: np.ndarray, size: int) -> np.ndarray:
    """(H, W, C) in [0, 1] -> (size, size, C), squashed to a square with a smooth filter."""
    chans = [
        np.asarray(Image.fromarray(pixels[..., c]).resize((size, size), Image.Resampling.LANCZOS))
        for c in range(pixels.shape[-1])
    ]
    return np.clip(np.stack(chans, -1), 0, 1)


def _fit(grey: np.ndarray, side: int = WORK_SIDE) -> np.ndarray:
    """(H, W) grey with its longer side at most `side`, its proportions kept."""
    height, width = grey.shape
    scale = side / max(height, width)
    if scale >= 1:
        return grey
    shape = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(Image.fromarray(grey).resize(shape, Image.Resampling.BOX))


def as_digit(grey: np.ndarray, size: int) -> np.ndarray:
    """(H, W) grey in [0, 1] -> (size, size) light ink on dark, cropped to the ink, centred and
    scaled as MNIST's digits are. The square the crop is centred in is at most WORK_SIDE a side
    (a larger crop is shrunk first)."""
    grey = np.asarray(grey, dtype=np.float32)
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    if border.mean() > 0.5:  # a dark digit on light paper
        grey = 1.0 - grey
    ink = grey > INK
    if not ink.any():
        raise SceneInputError("the image is blank: draw or photograph a digit")
    rows, cols = np.flatnonzero(ink.any(1)), np.flatnonzero(ink.any(0))
    crop = _fit(grey[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1])
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
    (see the module docstring). Raises SceneInputError (a ValueError) saying what is wrong."""
    if channels not in (1, 3) or not 1 <= size <= MAX_MODEL_SIDE:
        raise SceneInputError(
            f"a model input of {channels} channels and {size} pixels is not possible"
        )
    rgb = to_rgb(decode(open_checked(data)))  # (H, W, 3), H and W at most WORK_SIDE
    if channels == 1:
        grey = rgb @ LUMINANCE  # luminance (H, W)
        if digit_style:
            return as_digit(grey, size)[None].astype(np.float32)
        return resize(grey[..., None], size).transpose(2, 0, 1).astype(np.float32)
    return resize(rgb, size).transpose(2, 0, 1).astype(np.float32)


def vision_upload(data: bytes, size: int, channels: int) -> np.ndarray:
    """The vision page's own image: (channels, size, size) as its image set's; a grey set is of
    digits (8 × 8 or MNIST's 28 × 28), so a grey upload is prepared as MNIST prepares digits."""
    return read_image(data, size, channels, digit_style=channels == 1)


def caption_upload(data: bytes, size: int) -> np.ndarray:
    """The captioning page's own image: (3, size, size), as its generated scenes."""
    return read_image(data, size, 3)
