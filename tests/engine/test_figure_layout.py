"""Grids of heads never overlap and grow with heads and tokens; long maps keep their structure
(max-pool, top-k per row, full-resolution window), each checked against a brute-force oracle."""

from __future__ import annotations

import itertools

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.figures.axes import label_extent
from attnviz.figures.long_maps import (
    max_pool,
    pool_labels,
    top_k_figure,
    top_k_rows,
    window,
    window_figure,
)
from attnviz.figures.text import block_average, heads_grid

MIN_CELL_PX = 8


def subplot_boxes(fig: go.Figure) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    lay = fig.to_dict()["layout"]
    names = sorted((k for k in lay if k.startswith("xaxis")), key=lambda k: int(k[5:] or 1))
    return [(lay[x]["domain"], lay["y" + x[1:]]["domain"]) for x in names]


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return min(a[1], b[1]) - max(a[0], b[0]) > 1e-9


@pytest.mark.parametrize(
    ("heads", "t"), [(h, t) for h in (1, 2, 3, 4, 5, 8, 12) for t in (4, 13, 24, 40, 64)]
)
def test_heads_grid_subplots_never_overlap_and_cells_stay_tall(heads, t):
    tokens = [f"tok{i}" for i in range(t)]
    fig = heads_grid(np.full((heads, t, t), 1 / t, dtype=np.float32), tokens)
    boxes = subplot_boxes(fig)
    assert len(boxes) == heads
    area_px = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    label_px = label_extent(list(fig.data[0].x))
    for (xa, ya), (xb, yb) in itertools.combinations(boxes, 2):
        assert not (overlap(xa, xb) and overlap(ya, yb))
        if overlap(xa, xb):  # one above the other: the rotated key labels fit in between
            gap_px = (max(ya[0], yb[0]) - min(ya[1], yb[1])) * area_px
            assert gap_px >= label_px
    for _, (y0, y1) in boxes:
        assert 0 <= y0 < y1 <= 1
        assert (y1 - y0) * area_px / t >= MIN_CELL_PX
    titles = [a.text for a in fig.layout.annotations]
    assert titles == [f"head {i}" for i in range(heads)]


def test_grid_height_grows_with_heads_and_tokens():
    def height(h, t):
        return heads_grid(np.ones((h, t, t), np.float32) / t, list("x" * t)).layout.height

    assert height(8, 8) > height(4, 8) >= height(1, 8)  # 4 maps fit one row
    assert height(2, 64) > height(2, 24) > height(2, 8)


def test_max_pool_keeps_each_block_maximum():
    rng = np.random.default_rng(1)
    m = rng.random((10, 10)).astype(np.float32)
    pooled = max_pool(m, 4)  # blocks of rows/columns [0,2) [2,5) [5,7) [7,10)
    edges = [0, 2, 5, 7, 10]
    oracle = np.array(
        [
            [m[a:b, c:d].max() for c, d in itertools.pairwise(edges)]
            for a, b in itertools.pairwise(edges)
        ]
    )
    np.testing.assert_array_equal(pooled, oracle)
    assert pool_labels(10, 4) == ["0–1", "2–4", "5–6", "7–9"]
    assert max_pool(m, 16) is m


def test_a_sharp_long_map_stays_visible_after_pooling():
    t = 500
    m = np.zeros((t, t), np.float32)
    m[np.arange(t), (np.arange(t) + 7) % t] = 1.0  # each token looks at one key: a sharp band
    fig = heads_grid(m[None], [f"w{i}" for i in range(t)])
    go.Figure(fig.to_dict())  # valid Plotly
    z = np.asarray(fig.data[0].z)
    assert z.shape == (128, 128) and "max-pooled" in fig.layout.title.text
    assert (z.max(axis=1) == 1.0).all()  # every pooled row still shows its peak
    assert block_average(m, 128).max() < 0.5  # what mean-pooling drew: near white
    assert fig.layout.xaxis.tickvals is None  # Plotly draws a subset of block labels that fits
    assert list(fig.layout.xaxis.categoryarray) == list(fig.data[0].x)  # in token order


def test_top_k_rows_matches_a_sort():
    rng = np.random.default_rng(2)
    m = rng.dirichlet(np.ones(30), size=20).astype(np.float32)
    values, idx = top_k_rows(m, 3)
    assert values.shape == idx.shape == (20, 3)
    for row, v, j in zip(m, values, idx, strict=True):
        oracle = sorted(range(30), key=lambda c: -row[c])[:3]
        assert list(j) == oracle
        np.testing.assert_array_equal(v, row[oracle])
    assert top_k_rows(m, 99)[0].shape == (20, 30)  # k clipped to the keys


def test_top_k_figure_places_each_row_peak():
    t = 200
    m = np.full((t, t), 0.1 / t, np.float32)
    m[np.arange(t), np.arange(t)[::-1]] = 0.9
    fig = top_k_figure(m, [f"w{i}" for i in range(t)], k=2)
    go.Figure(fig.to_dict())
    x, y = np.asarray(fig.data[0].x), np.asarray(fig.data[0].y)
    assert len(x) == 2 * t
    first = x[::2]  # each row's largest weight comes first
    np.testing.assert_array_equal(first, np.arange(t)[::-1])
    np.testing.assert_array_equal(y[::2], np.arange(t))


def test_window_is_full_resolution_and_clipped():
    m = np.arange(100, dtype=np.float32).reshape(10, 10)
    block, rs, cs = window(m, (8, 3), (5, 50))
    np.testing.assert_array_equal(block, m[3:8, 5:10])
    assert (rs, cs) == (slice(3, 8), slice(5, 10))
    fig = window_figure(m / 100, [str(i % 3) for i in range(10)], (3, 8), (5, 10))
    go.Figure(fig.to_dict())
    assert list(fig.data[0].y) == ["3:0", "4:1", "5:2", "6:0", "7:1"]
    assert fig.layout.xaxis.type == "category"
    np.testing.assert_allclose(np.asarray(fig.data[0].z), m[3:8, 5:10] / 100)


def test_long_views_escape_user_tokens():
    tokens = ["<script>", "a b", "x", "y"]
    figs = [top_k_figure(np.eye(4), tokens, k=1), window_figure(np.eye(4), tokens, (0, 4), (0, 4))]
    for fig in figs:
        assert "<script>" not in str(fig.to_dict()["data"])
    assert list(figs[1].data[0].y)[:2] == ["0:&lt;script&gt;", "1:a␣b"]


def test_pooled_maps_of_spread_weights_are_coloured_to_their_maximum():
    t = 300
    m = np.full((2, t, t), 1 / t, np.float32)
    m[1, :, 5] += 0.05  # one head puts a little extra on key 5
    fig = heads_grid(m / m.sum(-1, keepdims=True), [f"w{i}" for i in range(t)])
    top = max(float(np.asarray(tr.z).max()) for tr in fig.data)
    assert all(tr.zmax == pytest.approx(np.ceil(top * 100) / 100) for tr in fig.data)
    assert f"colours 0 to {fig.data[0].zmax:.2f}" in fig.layout.title.text
    short = heads_grid(np.full((1, 4, 4), 0.25, np.float32), list("abcd"))
    assert short.data[0].zmax == 1 and "colours" not in short.layout.title.text
