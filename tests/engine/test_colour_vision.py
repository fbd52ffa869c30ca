"""Categorical colours stay apart under colour-vision deficiency.

Every pair of colours that must be told apart in one figure (head colours of the head view, a
training run's curves and its companions', a bar and its highlight, the recurrent, kernel and
captioning legends) is simulated with Machado, Oliveira & Fernandes (2009) deuteranopia and
protanopia at severity 1.0, applied in linear RGB, and compared in CIELAB (D65): the CIE76
distance must be at least MIN_DELTA_E in normal vision and under both simulations. The matrices
are written out here, not taken from the code under test.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from attnviz.figures import base, captioning, kernel, recurrent, text, training

MIN_DELTA_E = 15.0  # CIE76: ~2.3 is a just-noticeable difference; 15 reads at a glance

NORMAL = np.eye(3)
DEUTERANOPIA = np.array(
    [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ]
)
PROTANOPIA = np.array(
    [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ]
)
VISIONS = {"normal": NORMAL, "deuteranopia": DEUTERANOPIA, "protanopia": PROTANOPIA}
SRGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
WHITE_D65 = np.array([0.95047, 1.0, 1.08883])


def linear_rgb(hex_colour: str) -> np.ndarray:
    """'#rrggbb' in linear RGB (the sRGB transfer curve undone)."""
    h = hex_colour.lstrip("#")
    c = np.array([int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(rgb_linear: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of a linear-RGB colour, clipped to the gamut first."""
    t = SRGB_TO_XYZ @ np.clip(rgb_linear, 0, 1) / WHITE_D65
    eps = (6 / 29) ** 3
    f = np.where(t > eps, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: str, b: str, vision: np.ndarray) -> float:
    """CIE76 distance between two colours as seen through `vision` (a 3×3 matrix)."""
    return float(np.linalg.norm(lab(vision @ linear_rgb(a)) - lab(vision @ linear_rgb(b))))


def too_close(colours) -> list[str]:
    """'a b vision ΔE' for every pair closer than MIN_DELTA_E under any vision."""
    return [
        f"{a} {b} {name} {d:.1f}"
        for a, b in itertools.combinations(colours, 2)
        for name, m in VISIONS.items()
        if (d := delta_e(a, b, m)) < MIN_DELTA_E
    ]


def test_simulation_keeps_greys_and_merges_red_with_green():
    for m in (DEUTERANOPIA, PROTANOPIA):
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-3)  # white and greys unchanged
    # the old head colours 6 and 7, red and green: far apart, merged under deuteranopia
    assert delta_e("#e03131", "#5c940d", NORMAL) > 100
    assert delta_e("#e03131", "#5c940d", DEUTERANOPIA) < 5
    assert too_close(["#e03131", "#5c940d"]) == ["#e03131 #5c940d deuteranopia 2.9"]
    # the training figure's validation orange beside a companion's green, as before: protanopia
    assert delta_e("#e8590c", "#2f9e44", PROTANOPIA) < MIN_DELTA_E


def test_head_colours_stay_apart():
    assert len(set(text.HEAD_COLORS)) == len(text.HEAD_COLORS) >= 8
    assert too_close(text.HEAD_COLORS) == []
    first = text.HEAD_COLORS[:4]  # the text page's default heads: wider apart still
    pairs = itertools.combinations(first, 2)
    assert min(delta_e(a, b, m) for a, b in pairs for m in VISIONS.values()) >= 24


def history_with_companions() -> SimpleNamespace:
    extra = {f"{n} {w}": 0.5 for n in ("cnn", "mlp") for w in ("val_loss", "val_metric")}
    return SimpleNamespace(
        step=[0, 1, 2],
        train_loss=[1.0, 0.8, 0.6],
        eval_step=[2],
        val_loss=[0.7],
        train_metric=[0.5],
        val_metric=[0.4],
        extra=[extra],
    )


def test_training_curves_of_one_panel_stay_apart():
    fig = training.curves_figure(history_with_companions(), "accuracy", model_name="vit")
    panels: dict[str, set[str]] = {}
    for trace in fig.data:
        panels.setdefault(trace.xaxis or "x", set()).add(trace.line.color)
    assert sorted(panels) == ["x", "x2"]
    for colours in panels.values():
        assert len(colours) == 4, colours  # train, validation and two companions
        assert too_close(sorted(colours)) == []


@pytest.mark.parametrize(
    "colours",
    [
        (base.BAR_COLOR, base.HIGHLIGHT_COLOR),
        tuple(recurrent.MODEL_COLOURS.values()),
        tuple(recurrent.TIMING_COLOURS.values()),
        (kernel.BLUE, kernel.ORANGE, kernel.GREY),
        (captioning.SHARE_COLOUR, captioning.EVEN_COLOUR),
    ],
    ids=["bar-highlight", "recurrent-models", "recurrent-timing", "kernel", "captioning"],
)
def test_legend_colours_stay_apart(colours):
    assert too_close(colours) == []
