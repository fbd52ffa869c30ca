"""The captioning page's figures: panels per word (each map over its part of the image), every
layer × head, the words × regions matrix with labelled axes, what is said for held-out shapes,
and the share of attention on the named shape per head."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures.captioning import (
    IMAGE_NAME,
    cross_attention_figure,
    heads_figure,
    region_names,
    said_figure,
    share_figure,
    word_names,
    words_figure,
)
from tests.support.apptest import plotly_array

WORDS = ["a", "large", "red", "square", "<eos>"]
IMAGE = np.zeros((3, 48, 48), np.float32)


def overlays(fig: go.Figure) -> list:
    return [t for t in fig.data if t.type == "heatmap"]


def names(fig: go.Figure) -> list[str]:
    return [a.text for a in fig.layout.annotations]


def test_words_figure_draws_the_image_then_one_map_per_word_over_its_regions():
    maps = np.random.default_rng(0).random((len(WORDS), 6, 6)).astype(np.float32)
    maps[2] = 0
    maps[2, 1, 4] = 1.0  # "red" looks at row 1, column 4
    fig = words_figure(IMAGE, WORDS, maps, "Where each word looks, step 0")
    assert fig.layout.title.text == "Where each word looks, step 0"
    assert names(fig) == [IMAGE_NAME, "1 a", "2 large", "3 red", "4 square", "5 ⟨eos⟩"]
    assert len([t for t in fig.data if t.type == "image"]) == 6, "the image in every panel"
    red = overlays(fig)[2]
    assert (red.dx, red.dy) == (8, 8), "a 6 × 6 grid over 48 px: 8 px a region"
    z = plotly_array(red.z.tolist() if hasattr(red.z, "tolist") else red.z)
    assert np.unravel_index(np.argmax(z), z.shape) == (1, 4)
    assert "3 red" in red.hovertemplate


def test_words_figure_wraps_long_captions_into_rows():
    words = ["a", "small", "red", "circle", "left", "of", "a", "large", "blue", "square", "<eos>"]
    fig = words_figure(IMAGE, words, np.zeros((11, 6, 6)), "t", columns=6)
    tops = sorted(
        {round(fig.layout[f"yaxis{'' if i == 0 else i + 1}"].domain[1], 3) for i in range(12)}
    )
    assert len(tops) == 2, "12 panels, 6 a row: two rows"


def test_heads_figure_has_a_row_per_layer_and_head_and_a_column_per_word():
    maps = np.random.default_rng(1).random((len(WORDS), 2, 2, 6, 6))
    fig = heads_figure(IMAGE, WORDS, maps, "Each layer and head")
    assert len(overlays(fig)) == len(WORDS) * 4
    shown = names(fig)
    assert shown[: len(WORDS)] == ["1", "2", "3", "4", "5"], "columns: the words' numbers"
    assert "3 red: layer 1, head 0" in overlays(fig)[len(WORDS) * 2 + 2].hovertemplate
    assert shown[len(WORDS) :] == ["L0 H0", "L0 H1", "L1 H0", "L1 H1"]


def test_the_cross_attention_matrix_has_words_down_and_regions_across():
    weights = np.full((len(WORDS), 36), 1 / 36, np.float32)
    fig = cross_attention_figure(weights, WORDS, 6, "Cross-attention, words × regions")
    x, y = fig.layout.xaxis, fig.layout.yaxis
    assert "region" in x.title.text and "6×6" in x.title.text
    assert y.title.text == "word written"
    assert list(x.tickvals)[:2] == ["0,0", "0,1"] and list(x.tickvals)[-1] == "5,5"
    named = [t for t in x.ticktext if t]  # a 6 × 6 grid names each row's first region
    assert named == [f"{r},0" for r in range(6)] and len(x.ticktext) == 36
    assert list(y.ticktext) == word_names(WORDS)
    assert y.autorange == "reversed", "the first word on top"
    assert region_names(2) == ["0,0", "0,1", "1,0", "1,1"]


def test_said_figure_puts_the_most_frequent_answer_on_top():
    fig = said_figure({"blue circle": 30, "blue square": 12, "(no phrase)": 1}, "What it says")
    bar = fig.data[0]
    assert list(bar.y) == ["(no phrase)", "blue square", "blue circle"], "bottom to top"
    assert plotly_array(bar.x).tolist() == [1, 12, 30]
    assert fig.layout.xaxis.title.text == "held-out shapes"
    assert fig.layout.yaxis.title.text == "what it said"


def test_share_figure_has_a_bar_per_head_and_the_even_share_as_a_line():
    per_head = np.array([[0.6, 0.3], [0.4, 0.2]], np.float32)
    fig = share_figure(per_head, 0.15, "Attention on the named shape")
    bars, even = fig.data
    assert list(bars.x) == [
        "layer 0, head 0",
        "layer 0, head 1",
        "layer 1, head 0",
        "layer 1, head 1",
    ]
    assert np.allclose(plotly_array(bars.y), per_head.reshape(-1))
    assert list(bars.text) == ["60%", "30%", "40%", "20%"]
    assert list(even.y) == [0.15, 0.15] and even.line.dash == "dash"
    assert fig.layout.yaxis.title.text == "share of attention"
    gru = share_figure(np.array([[0.9]]), 0.15, "t")
    assert list(gru.data[0].x) == ["the GRU's attention"]


def test_a_flat_map_stays_faint_and_a_peaked_one_is_drawn_at_full_strength():
    flat = np.full((6, 6), 1 / 36)
    peaked = np.zeros((6, 6))
    peaked[2, 3] = 0.9
    fig = words_figure(IMAGE, ["a", "red"], np.stack([flat, peaked]), "t")
    flat_trace, peaked_trace = overlays(fig)
    assert flat_trace.zmax == pytest.approx(3 / 36), "three times the even share"
    assert peaked_trace.zmax == pytest.approx(0.9), "its own largest weight"
