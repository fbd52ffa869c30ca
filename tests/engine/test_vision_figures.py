"""The vision figures draw what they claim: attention cells exactly over their patches, images
upright and unstretched, patch numbers in token order, valid Plotly, hover values."""

from __future__ import annotations

import base64
import io

import numpy as np
import plotly.graph_objects as go
import pytest
from PIL import Image

from attnviz.figures.vision import (
    Panel,
    distance_figure,
    distance_timeline,
    panels_figure,
    patch_grid_figure,
)

GREY = np.random.default_rng(0).random((1, 8, 8)).astype(np.float32)
RGB = np.random.default_rng(1).random((3, 32, 32)).astype(np.float32)


def figures() -> dict[str, go.Figure]:
    maps = np.random.default_rng(2).random((4, 4))
    return {
        "panels-grey": panels_figure([Panel(GREY, "a", maps), Panel(GREY, "b")], 2, "t"),
        "panels-rgb": panels_figure([Panel(RGB, "c", np.eye(8), (0, 0, 4, 4))] * 3, 3, "t"),
        "grid": patch_grid_figure(GREY, 2, "patches"),
        "distance": distance_figure(np.array([[1.0, 2.0], [3.0, 4.0]]), 3.5, "d"),
        "timeline": distance_timeline([0, 25, 50], np.ones((3, 2, 2)), 3.5),
    }


@pytest.mark.parametrize("name", list(figures()))
def test_builder_output_is_valid_plotly(name):
    fig = figures()[name]
    go.Figure(fig.to_dict())  # raises on any invalid property
    assert fig.layout.title.text


def test_each_attention_cell_covers_its_patch_exactly():
    attention = np.zeros((4, 4))
    attention[1, 3] = 1.0  # patch 7 of a 4 × 4 grid on an 8-pixel image: rows 2–3, columns 6–7
    fig = panels_figure([Panel(GREY, "one", attention)], 1, "t").to_dict()
    image, overlay = fig["data"]
    assert image["type"] == "heatmap" and overlay["type"] == "heatmap"
    x_centre = overlay["x0"] + 3 * overlay["dx"]
    y_centre = overlay["y0"] + 1 * overlay["dy"]
    assert (x_centre, y_centre) == (6.5, 2.5)  # the middle of pixels 6–7 and 2–3
    assert overlay["dx"] == overlay["dy"] == 2
    xaxis, yaxis = fig["layout"]["xaxis"], fig["layout"]["yaxis"]
    assert xaxis["range"] == [-0.5, 7.5]
    assert yaxis["range"] == [7.5, -0.5], "row 0 of the image is at the top"
    assert yaxis["scaleanchor"] == "x", "pixels are square"


def test_colour_images_are_drawn_in_colour_and_grey_in_grey():
    rgb = panels_figure([Panel(RGB, "c")], 1, "t").to_dict()["data"][0]
    assert rgb["type"] == "image"
    png = base64.b64decode(rgb["source"].removeprefix("data:image/png;base64,"))
    decoded = np.asarray(Image.open(io.BytesIO(png)))
    expected = (np.transpose(RGB, (1, 2, 0)) * 255).astype(np.uint8)
    np.testing.assert_array_equal(decoded, expected)
    grey = panels_figure([Panel(GREY, "g")], 1, "t").to_dict()["data"][0]
    assert grey["colorscale"][0][1] == "#000000", "ink light on a dark ground, as the data is"


def test_patch_numbers_follow_the_token_order():
    fig = patch_grid_figure(GREY, 2, "patches").to_dict()
    notes = fig["layout"]["annotations"]
    assert [n["text"] for n in notes] == [str(i) for i in range(16)]
    fifth = notes[5]  # row 1, column 1: pixels 2–3 both ways
    assert 1.5 <= fifth["x"] < 3.5 and 1.5 <= fifth["y"] < 3.5
    lines = [s for s in fig["layout"]["shapes"] if s["type"] == "line"]
    assert len(lines) == 2 * 5  # 4 patches a side: 5 lines each way


def test_large_grids_are_not_numbered():
    fig = patch_grid_figure(np.zeros((1, 28, 28)), 2, "many").to_dict()
    assert not fig["layout"].get("annotations")


def test_panels_are_placed_in_rows_without_overlap():
    fig = panels_figure([Panel(GREY, str(i)) for i in range(8)], 4, "t").to_dict()["layout"]
    domains = [fig[k]["domain"] for k in sorted(fig) if k.startswith("yaxis")]
    rows = sorted({tuple(d) for d in domains})
    assert len(rows) == 2 and rows[0][1] < rows[1][0]


def test_distance_figure_puts_layers_on_a_category_axis():
    fig = distance_figure(np.array([[1.0, 2.0], [3.0, 4.0]]), 3.5, "d").to_dict()
    assert fig["layout"]["xaxis"]["type"] == "category"
    assert [t["name"] for t in fig["data"]] == ["head 0", "head 1", "attention spread evenly"]
