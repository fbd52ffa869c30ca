"""Axis and text helpers shared by the figure builders: categorical token axes that show every
label where they fit (a y axis: every label up to LABEL_ALL_MAX tokens, a readable subset
beyond; an x axis of more than SPACED_MIN labels: as many as the drawn width holds), numbers
without e-notation, cell numbers that fit their cells, and titles wrapped instead of clipped.

Pixel sizes are estimates (a character is about 0.6 em wide): they decide what fits, they do not
measure the browser."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

LABEL_ALL_MAX = 64  # up to this many tokens every label is drawn
SUBSET_LABELS = 32  # beyond it, about this many (every k-th)
SPACED_MIN = 16  # an x axis of more labels leaves their spacing to Plotly (see token_axis)
CHAR_EM = 0.6  # average glyph width / font size
TITLE_CHARS = 70  # a title line at the base font; scale_fonts narrows it with the font
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def tick_font_size(n: int) -> int:
    """Tick label font (px) for an axis of n categories: smaller as they crowd."""
    return 12 if n <= 16 else 11 if n <= 32 else 9


def label_step(n: int) -> int:
    """Show every label up to LABEL_ALL_MAX, else every k-th so about SUBSET_LABELS remain."""
    return 1 if n <= LABEL_ALL_MAX else math.ceil(n / SUBSET_LABELS)


def tick_angle(labels: Sequence[str]) -> int | None:
    """x tick labels: None (Plotly's automatic angle, which turns them only if they would
    collide) for up to 8 labels, else −90 (vertical) so a crowd of labels never overprints."""
    return None if len(labels) <= 8 else -90


def label_extent(labels: Sequence[str], font: int | None = None) -> int:
    """Estimated px a rotated label column (or a y-axis label column) needs."""
    font = font or tick_font_size(len(labels))
    longest = max((len(s) for s in labels), default=1)
    return int(min(longest, 24) * CHAR_EM * font) + 8


def token_axis(labels: Sequence[str], vertical: bool = False, **extra) -> dict:
    """A categorical axis: every label up to LABEL_ALL_MAX, every k-th beyond, or, on an x axis
    of more than SPACED_MIN labels, as many as fit the width it is drawn at.

    `labels` must already be distinct (unique_labels); they are the categories in order, so digit
    tokens stay categories and are never read as numbers. `vertical`: a y axis (labels stay
    horizontal, explicit ticks: the figure's height grows for them, base.grow_for_rows). An x
    axis turns crowded labels vertical; past SPACED_MIN labels it gives no tick list, so Plotly
    spaces the upright labels one line apart on the width it gets (every label on a projector,
    every 2nd or 3rd in a phone's column: the server does not know the width; the hover names
    each token)."""
    labels = [str(s) for s in labels]
    step = label_step(len(labels))
    shown = labels[::step]
    axis = {
        "type": "category",
        "categoryorder": "array",
        "categoryarray": labels,
        "tickmode": "array",
        "tickvals": shown,
        "ticktext": shown,
        "tickfont": {"size": tick_font_size(len(shown))},
        "automargin": True,
    }
    spaced = not vertical and len(labels) > SPACED_MIN
    if spaced:
        axis["tickmode"] = "auto"
        del axis["tickvals"], axis["ticktext"]
    angle = 0 if vertical else tick_angle(labels) if step == 1 and not spaced else -90
    if angle is not None:
        axis["tickangle"] = angle
    return axis | extra


def format_value(value: float, decimals: int = 2) -> str:
    """A number for a class: fixed decimals, never e-notation. Values that round to zero read
    0.00 (with their sign dropped); very large ones read like 1.07×10¹³."""
    v = float(value)
    if not math.isfinite(v):
        return "−∞" if v == -math.inf else "∞" if v == math.inf else "NaN"
    if abs(v) < 0.5 * 10.0**-decimals:
        return f"{0.0:.{decimals}f}"
    if abs(v) >= 1e6:
        exp = int(math.floor(math.log10(abs(v))))
        mant = v / 10.0**exp
        return f"{mant:.2f}×10{str(exp).translate(_SUPERSCRIPT)}".replace("-", "−", 1)
    return f"{v:.{decimals}f}".replace("-", "−")


def format_values(values: np.ndarray, decimals: int = 2) -> list:
    """format_value over an array, keeping its nesting (1-D -> list, 2-D -> list of lists)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 1:
        return [format_value(v, decimals) for v in arr]
    return [format_values(row, decimals) for row in arr]


def text_px(text: str, font: float) -> float:
    """Estimated width in px of one line of text."""
    return len(text) * CHAR_EM * font


def fit_decimals(values: np.ndarray, cell_px: float, font: float, most: int = 2) -> int | None:
    """The most decimals (≤ most) whose widest cell text fits `cell_px`, or None (hide numbers)."""
    finite = np.asarray(values, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    for decimals in range(most, -1, -1):
        widest = max((text_px(format_value(v, decimals), font) for v in finite), default=0.0)
        if widest + 4 <= cell_px:
            return decimals
    return None


def wrap_title(text: str, width: int = TITLE_CHARS) -> str:
    """Break a title at spaces into lines of at most `width` characters (existing <br> kept; a
    line that fits is left as it is; a bracketed group such as "[4 × 3]" is never split)."""
    lines = []
    for part in str(text).split("<br>"):
        if len(part) <= width:
            lines.append(part)
            continue
        line = ""
        for word in re.findall(r"\[[^\]]*\]|[^\s\[]+", part):
            if line and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return "<br>".join(lines)
