"""Image files made by hand for the upload tests: raw PNG chunks and JPEG segments (files
that declare what they are not), and PIL-made files at the limits. Nothing here reads them."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable

import numpy as np
from PIL import Image

MB = 2**20


def encode(image: Image.Image, fmt: str = "PNG", **options) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def chunk(kind: bytes, body: bytes) -> bytes:
    """One PNG chunk: length, type, body, CRC of type + body (PNG spec, section 5.3)."""
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def raw_png(width: int, height: int, *chunks: bytes, colour: int = 0) -> bytes:
    """A PNG signature and an 8-bit IHDR declaring width × height, then `chunks`, then IEND."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    signature = b"\x89PNG\r\n\x1a\n"
    return signature + chunk(b"IHDR", ihdr) + b"".join(chunks) + chunk(b"IEND", b"")


def line_png(width: int, height: int) -> bytes:
    """White, with a black line along the whole of its longer side (the issue's repro)."""
    image = Image.new("1", (width, height), 1)
    line = (
        (0, height // 2, width, height // 2 + 1)
        if width >= height
        else (width // 2, 0, width // 2 + 1, height)
    )
    image.paste(0, line)
    return encode(image, optimize=True)


def jpeg_header(width: int, height: int) -> bytes:
    """SOI, a baseline frame header (SOF0) declaring width × height in 3 components, an empty
    scan header (SOS) and EOI: all a reader sees before the pixels."""
    sof = struct.pack(">BHHB", 8, height, width, 3) + b"".join(
        bytes([i, 0x11, 0]) for i in (1, 2, 3)
    )
    sos = bytes([3]) + b"".join(bytes([i, 0]) for i in (1, 2, 3)) + bytes([0, 63, 0])
    return (
        b"\xff\xd8"
        + b"\xff\xc0"
        + struct.pack(">H", len(sof) + 2)
        + sof
        + b"\xff\xda"
        + struct.pack(">H", len(sos) + 2)
        + sos
        + b"\xff\xd9"
    )


def jpeg_segments(jpg: bytes) -> list[tuple[int, bytes]]:
    """(marker, whole segment) of a JPEG after SOI; a scan's segment runs to the next marker
    (0xFF followed by neither 0x00, a stuffed byte, nor a restart marker 0xD0-0xD7)."""
    out, i = [], 2
    while jpg[i + 1] != 0xD9:
        marker, (length,) = jpg[i + 1], struct.unpack(">H", jpg[i + 2 : i + 4])
        end = i + 2 + length
        while marker == 0xDA and not (jpg[end] == 0xFF and jpg[end + 1] not in SCAN_BYTES):
            end += 1
        out.append((marker, jpg[i:end]))
        i = end
    return out


SCAN_BYTES = {0x00, *range(0xD0, 0xD8)}


def repeated_scans(image: Image.Image, extra: int, **options) -> bytes:
    """A progressive JPEG of `image` whose last scan is repeated `extra` more times (every
    scan is a pass of the decoder over the whole image)."""
    segments = jpeg_segments(encode(image, "JPEG", progressive=True, **options))
    last_scan = [seg for marker, seg in segments if marker == 0xDA][-1]
    return b"\xff\xd8" + b"".join(seg for _, seg in segments) + last_scan * extra + b"\xff\xd9"


def inflating_idat(width: int, height: int, megabytes: int) -> bytes:
    """A width × height grey PNG whose IDAT inflates to `megabytes` MB of zeros, far more than
    its rows need: one deflate block of 1 MB of zeros, flushed so that it stands alone,
    repeated."""
    deflate = zlib.compressobj(9)
    head = deflate.compress(bytes(MB)) + deflate.flush(zlib.Z_FULL_FLUSH)
    block = deflate.compress(bytes(MB)) + deflate.flush(zlib.Z_FULL_FLUSH)
    stream = head + block * (megabytes - 1) + deflate.flush()
    return raw_png(width, height, chunk(b"IDAT", stream))


def animated(fmt: str, frames: int) -> bytes:
    """An animation (GIF, TIFF pages or APNG): a red first frame, then blue and green."""
    colours = [(220, 30, 30)] + [(30, 30, 220), (30, 200, 30)] * (frames // 2)
    images = [Image.new("RGB", (64, 64), c) for c in colours[:frames]]
    options = {"duration": 40} if fmt != "TIFF" else {}
    return encode(images[0], fmt, save_all=True, append_images=images[1:], **options)


def many_chunks(count: int) -> bytes:
    """A 16 × 16 grey PNG with `count` empty private chunks before its pixels."""
    idat = chunk(b"IDAT", zlib.compress(bytes(17 * 16)))
    return raw_png(16, 16, chunk(b"prVt", b"") * count, idat)


def many_comments(count: int) -> bytes:
    """A 64 × 64 JPEG with `count` empty comment segments (COM, 0xFFFE) before its frame."""
    jpeg = encode(Image.new("RGB", (64, 64), (10, 200, 30)), "JPEG")
    return jpeg[:2] + b"\xff\xfe\x00\x02" * count + jpeg[2:]


def text_bomb() -> bytes:
    """A 16 × 16 grey PNG whose compressed text chunk (zTXt) inflates to 64 MB."""
    text = b"Comment\x00\x00" + zlib.compress(bytes(64 * MB), 9)
    return raw_png(16, 16, chunk(b"zTXt", text), chunk(b"IDAT", zlib.compress(bytes(17 * 16))))


def padded(data: bytes, size: int) -> bytes:
    """`data` and zeros after it, `size` bytes in all (a reader stops at PNG's IEND)."""
    return data + bytes(size - len(data))


def cut_in_half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def noise(width: int, height: int, mode: str = "RGB") -> Image.Image:
    pixels = np.random.default_rng(0).integers(0, 256, (height, width, len(mode)), np.uint8)
    return Image.fromarray(pixels.squeeze(-1) if mode == "L" else pixels, mode)


def uniform(mode: str, size: tuple[int, int], value) -> Callable[[], bytes]:
    return lambda: encode(Image.new(mode, size, value))


def palette_with_transparency() -> bytes:
    """5,000 × 5,000 palette PNG, every pixel entry 1 (30, 160, 220); entry 0 transparent."""
    image = Image.new("P", (5000, 5000), 1)
    image.putpalette([0, 0, 0, 30, 160, 220] + [0] * 762)
    return encode(image, transparency=0)


def rotated_halves_jpeg() -> bytes:
    """A 25 MP progressive JPEG of 50 scans, stored sideways (EXIF orientation 6: turn it a
    quarter clockwise to see it): black on the stored left, white on the right, so the picture
    seen is black above and white below."""
    stored = Image.new("L", (5770, 4330), 255)
    stored.paste(0, (0, 0, 2885, 4330))
    exif = Image.Exif()
    exif[0x0112] = 6
    scans = sum(1 for m, _ in jpeg_segments(encode(stored, "JPEG", progressive=True)) if m == 0xDA)
    return repeated_scans(stored, 50 - scans, exif=exif.tobytes(), quality=90)
