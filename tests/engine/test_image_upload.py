"""A person's own image: bad files get a clear message (never a traceback), good ones come out
shaped like the training data. Every file is made here, in memory."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from PIL import Image

from attnviz.topics.vision_patches.uploads import MAX_UPLOAD_BYTES, read_image


def encode(image: Image.Image, fmt: str = "PNG", **options) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def test_a_file_that_is_not_an_image():
    with pytest.raises(ValueError, match="not a PNG or JPEG"):
        read_image(b"these are lecture notes", 8, 1)


def test_an_image_of_another_format():
    with pytest.raises(ValueError, match="GIF image; upload a PNG or JPEG"):
        read_image(encode(Image.new("RGB", (20, 20)), "GIF"), 8, 1)


def test_a_50_megapixel_image_is_refused_from_its_header():
    huge = encode(Image.new("1", (10_000, 5_000)))  # compresses to a few KB
    assert len(huge) < 200_000
    start = time.perf_counter()
    with pytest.raises(ValueError, match="50.0 megapixels; the limit is 25"):
        read_image(huge, 8, 1)
    assert time.perf_counter() - start < 1.0, "refused before decoding the pixels"


def test_a_file_over_5_mb():
    with pytest.raises(ValueError, match="5,242,884 bytes; the limit is 5 MB"):
        read_image(b"\x89PNG" + bytes(MAX_UPLOAD_BYTES), 8, 1)


def test_a_1x1_image():
    with pytest.raises(ValueError, match="1×1 pixels; an image must be at least 8×8"):
        read_image(encode(Image.new("L", (1, 1))), 8, 1)


def test_a_cmyk_jpeg_keeps_its_colours():
    red = Image.new("CMYK", (40, 40), (0, 255, 255, 0))  # pure red in CMYK
    out = read_image(encode(red, "JPEG", quality=95), 32, 3)
    r, g, b = out[:, 16, 16]
    assert r > 0.9 and g < 0.1 and b < 0.1, (r, g, b)


def test_a_png_with_alpha_is_laid_over_white():
    image = Image.new("RGBA", (32, 32), (0, 0, 0, 0))  # transparent
    image.paste((0, 0, 255, 255), (8, 8, 24, 24))  # an opaque blue square
    out = read_image(encode(image), 32, 3)
    np.testing.assert_allclose(out[:, 2, 2], [1, 1, 1], atol=0.02)  # white where transparent
    np.testing.assert_allclose(out[:, 16, 16], [0, 0, 1], atol=0.02)


def test_a_dark_digit_on_paper_becomes_a_centred_light_digit():
    paper = np.full((200, 120), 255, np.uint8)
    paper[30:150, 10:25] = 0  # a thick black "1", far left of centre
    out = read_image(encode(Image.fromarray(paper)), 28, 1, digit_style=True)[0]
    assert out.shape == (28, 28)
    assert out[0].max() < 0.05 and out.max() > 0.9, "light ink on a dark ground"
    rows, cols = np.nonzero(out > 0.2)
    assert abs(rows.mean() - 13.5) < 1.5 and abs(cols.mean() - 13.5) < 1.5, "centred"
    assert rows.max() - rows.min() + 1 <= 21, "scaled into 20 of 28 pixels, as MNIST"


def test_a_blank_digit_image():
    with pytest.raises(ValueError, match="blank"):
        read_image(encode(Image.new("L", (50, 50), 255)), 28, 1, digit_style=True)


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("mode", ["L", "RGB", "P", "LA", "I;16"])
def test_any_mode_comes_out_in_the_models_shape(mode, channels):
    image = Image.new(mode, (60, 45))
    out = read_image(encode(image), 32, channels)
    assert out.shape == (channels, 32, 32) and out.dtype == np.float32
    assert out.min() >= 0.0 and out.max() <= 1.0


def test_a_white_digit_on_transparency_stays_visible():
    image = Image.new("RGBA", (60, 60), (0, 0, 0, 0))
    image.paste((255, 255, 255, 255), (25, 10, 35, 50))  # a white "1", nothing behind it
    out = read_image(encode(image), 28, 1, digit_style=True)[0]
    assert out.max() > 0.9 and out[0].max() < 0.05


@pytest.mark.parametrize(
    "data",
    [b"%PDF-1.4 lecture", b"<svg xmlns='http://www.w3.org/2000/svg'/>", bytes(range(256)) * 4],
)
def test_pdf_svg_and_random_bytes(data):
    with pytest.raises(ValueError, match="not a PNG or JPEG"):
        read_image(data, 8, 1)


def test_a_damaged_png():
    good = encode(Image.new("RGB", (64, 64), (200, 10, 10)))
    with pytest.raises(ValueError, match="PNG or JPEG|could not be decoded"):
        read_image(good[: len(good) // 2], 8, 3)


def test_a_large_image_is_shrunk_in_strips_that_land_where_they_belong():
    """4,000 × 4,000 white with black rows 1,000 to 1,399 (a tenth of the height, a tenth down):
    shrunk a strip at a time to 1,000 × 1,000, then to 40 × 40, the black is rows 10 to 13.
    Rows next to an edge are blurred by the filter and not compared."""
    page = Image.new("RGBA", (4000, 4000), (255, 255, 255, 255))
    page.paste((0, 0, 0, 255), (0, 1000, 4000, 1400))
    out = read_image(encode(page), 40, 3)
    want = np.ones(40)
    want[10:14] = 0
    sure = np.r_[0:9, 11:13, 16:40]
    seen = out[:, sure, :]  # (3, rows, 40)
    np.testing.assert_allclose(
        seen, np.broadcast_to(want[sure][None, :, None], seen.shape), atol=0.02
    )


@pytest.mark.parametrize(
    "orientation, corner", [(1, (0, 0)), (3, (-1, -1)), (6, (0, -1)), (8, (-1, 0))]
)
def test_a_photo_stored_sideways_is_turned_upright(orientation, corner):
    """A black square in the stored top-left corner; EXIF orientation 6 means "turn a quarter
    clockwise to view", which puts it top right; 3 bottom right; 8 bottom left."""
    stored = Image.new("RGB", (1600, 1200), (255, 255, 255))  # shrunk on the way: 1,600 > 1,024
    stored.paste((0, 0, 0), (0, 0, 400, 400))
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = read_image(encode(stored, "JPEG", quality=95, exif=exif.tobytes()), 24, 3)
    assert out[:, corner[0], corner[1]].max() < 0.05, "the black corner"
    assert out[:, -1 - corner[0], -1 - corner[1]].min() > 0.95, "the opposite corner is white"


def test_a_phone_jpeg_with_extra_pictures_gives_its_first():
    """Many phones save JPEGs with a second picture (MPO; PIL names the format "MPO"): the
    first picture (red here, the second blue) is the photo."""
    red, blue = Image.new("RGB", (64, 64), (255, 0, 0)), Image.new("RGB", (64, 64), (0, 0, 255))
    mpo = encode(red, "MPO", save_all=True, append_images=[blue], quality=95)
    assert Image.open(io.BytesIO(mpo)).format == "MPO"
    np.testing.assert_allclose(read_image(mpo, 16, 3)[:, 8, 8], [1, 0, 0], atol=0.02)
