"""FlashAttention step by step (attnviz/topics/attention_at_scale/flash.py) against independent
oracles: PyTorch's scaled_dot_product_attention for the output (hypothesis over N, d and block
sizes), the row max and Σ exp(s − max) computed here for the running statistics, the paper's
per-pass counts (Dao et al. 2022, Algorithm 0 and the proof of Theorem 2) for the slow-memory
traffic; then the views, the notes and the FlashAttention Try-this claims on the page's values."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.topics.attention_at_scale.flash import (
    FlashConfig,
    block_sizes,
    flash_forward,
    run_flash,
    standard_traffic,
)
from attnviz.topics.attention_at_scale.flash_params import FLASH_PARAMS, FLASH_TRY_THIS
from attnviz.topics.attention_at_scale.flash_views import FLASH_VIEWS, flash_notes, flash_views

DEFAULTS = {p.key: p.default for p in FLASH_PARAMS} | {"seed": 0, "device": "cpu"}


def sdpa(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    t = [torch.from_numpy(x)[None, None] for x in (q, k, v)]  # (1, 1, N, d)
    return torch.nn.functional.scaled_dot_product_attention(*t)[0, 0].numpy()


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 20),
    d=st.integers(1, 8),
    block_r=st.integers(1, 20),
    block_c=st.integers(1, 20),
    seed=st.integers(0, 2**16),
)
def test_tiled_output_equals_pytorch_sdpa(n, d, block_r, block_c, seed):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((n, d)).astype(np.float32) * 3 for _ in range(3))
    tiles, out, _ = flash_forward(q, k, v, min(block_r, n), min(block_c, n))
    np.testing.assert_allclose(out, sdpa(q, k, v), atol=2e-5, rtol=1e-4)
    assert len(tiles) == math.ceil(n / min(block_r, n)) * math.ceil(n / min(block_c, n))


@pytest.mark.parametrize(("n", "d", "sram"), [(16, 4, 128), (13, 3, 40), (32, 8, 64)])
def test_running_max_and_sum_after_the_last_tile_are_each_rows_own(n, d, sram):
    run = run_flash(FlashConfig(n=n, d=d, sram=sram, seed=3))
    s = torch.from_numpy(run.q) @ torch.from_numpy(run.k).T / math.sqrt(d)  # (N, N)
    row_max = s.max(dim=1).values
    row_sum = torch.exp(s - row_max[:, None]).sum(dim=1)
    last = run.tiles[-1]
    np.testing.assert_allclose(last.m, row_max.numpy(), rtol=1e-6)
    np.testing.assert_allclose(last.ell, row_sum.numpy(), rtol=1e-5)
    np.testing.assert_allclose(last.out, sdpa(run.q, run.k, run.v), atol=2e-6)


def test_tiles_run_key_blocks_outside_and_query_blocks_inside():
    run = run_flash(FlashConfig(n=16, d=4, sram=128))  # B_r = 4, B_c = 8
    assert [(t.i, t.j) for t in run.tiles] == [(i, j) for j in range(2) for i in range(4)]
    assert run.tiles[5].rows == (4, 8) and run.tiles[5].cols == (8, 16)


@pytest.mark.parametrize(
    ("n", "d", "sram"), [(16, 4, 128), (64, 4, 128), (64, 8, 256), (48, 2, 16), (20, 4, 1024)]
)
def test_traffic_equals_the_papers_per_pass_counts(n, d, sram):
    b_c = math.ceil(sram / (4 * d))  # Algorithm 1, line 1
    b_r = min(b_c, d)
    t_c = math.ceil(n / b_c)  # passes of the outer loop
    # each pass reads all of Q, O, ℓ, m and writes all of O, ℓ, m; K and V are read once
    reads = 2 * n * d + t_c * (n * d + n * d + n + n)
    writes = t_c * (n * d + n + n)
    run = run_flash(FlashConfig(n=n, d=d, sram=sram))
    assert (run.block_r, run.block_c) == (min(b_r, n), min(b_c, n))
    assert (run.traffic.reads, run.traffic.writes) == (reads, writes)
    # Algorithm 0: read Q, K (2Nd), write S (N²); read S, write P; read P (N²), V (Nd), write O
    std = standard_traffic(n, d)
    assert (std.reads, std.writes) == (2 * n * d + n * n + n * n + n * d, n * n + n * n + n * d)
    assert run.tiles[-1].traffic == run.traffic  # counted tile by tile, up to the same total


def test_block_sizes_follow_m():
    assert block_sizes(16, 4, 128) == (4, 8)
    assert block_sizes(16, 4, 16) == (1, 1)
    assert block_sizes(8, 16, 1024) == (8, 8)  # both at most N


def test_views_and_notes_at_the_defaults():
    views = flash_views(DEFAULTS)
    assert list(views) == list(FLASH_VIEWS)
    for fig in views.values():
        go.Figure(fig.to_dict())  # valid Plotly (fast_figure skips validation)
    assert list(flash_views(DEFAULTS, only=["sc_flash_error"])) == ["sc_flash_error"]
    notes = flash_notes(DEFAULTS)
    assert "B_c = ⌈M/4d⌉ = 8" in notes[0] and "4 × 2 = 8 tiles" in notes[0]
    assert "standard 1,280 · tiled 640 (2.0× fewer)" in notes[1]
    tiles = views["sc_flash_tiles"]
    shapes = tiles.layout.shapes  # 1 column line, 3 row lines, 5 tiles done, the current one
    assert len(shapes) == 1 + 3 + 5 + 1
    z = np.asarray(tiles.data[0].z, dtype=np.float64)
    assert np.isfinite(z).sum() == 6 * 4 * 8  # only the 6 tiles computed so far have scores


def test_no_tile_yet_and_past_the_last():
    start = flash_views(DEFAULTS | {"sc_tile": 0})
    assert start["sc_flash_tiles"].layout.title.text == "No tile computed yet"
    assert np.isnan(np.asarray(start["sc_flash_running"].data[1].y, dtype=float)).all()
    past = flash_views(DEFAULTS | {"sc_tile": 64}, only=["sc_flash_tiles"])
    assert "tile 8 of 8" in past["sc_flash_tiles"].layout.title.text
    many = flash_notes(DEFAULTS | {"sc_n": 64, "sc_d": 2, "sc_sram": 16})
    assert "1,024 tiles" in many[-1] and "raise M" in many[-1]


def running(values) -> tuple[np.ndarray, ...]:
    fig = flash_views(values, only=["sc_flash_running"])["sc_flash_running"]
    return tuple(np.asarray(t.y, dtype=np.float64) for t in fig.data)  # m*, m, ℓ*, ℓ


@pytest.mark.try_this("attention-at-scale", 6)
def test_try_this_last_tile_meets_the_whole_row():
    assert "tiles done** to the end" in FLASH_TRY_THIS[0]
    m_final, m, ell_final, ell = running(DEFAULTS | {"sc_tile": 8})
    np.testing.assert_allclose(m, m_final, rtol=1e-6)
    np.testing.assert_allclose(ell, ell_final, rtol=1e-5)
    run = run_flash(FlashConfig())
    assert len(run.tiles) == 8 and run.max_error < 1e-6


@pytest.mark.try_this("attention-at-scale", 7)
def test_try_this_tile_six_rescales_three_rows():
    assert "from 5 to 6" in FLASH_TRY_THIS[1]
    run = run_flash(FlashConfig())
    before, tile = run.tiles[4], run.tiles[5]
    assert (tile.i, tile.j) == (1, 1)
    rows, cols = slice(*tile.rows), slice(*tile.cols)
    rose = tile.m[rows] > before.m[rows]
    assert rose.sum() == 3
    s = run.q[rows] @ run.k[cols].T / 2.0  # the new block's scores, √d = 2
    rescaled = np.exp(before.m[rows] - tile.m[rows]) * before.ell[rows]
    np.testing.assert_allclose(
        tile.ell[rows], rescaled + np.exp(s - tile.m[rows, None]).sum(1), rtol=1e-5
    )
    assert (np.exp(before.m[rows] - tile.m[rows])[rose] < 1).all()


@pytest.mark.try_this("attention-at-scale", 8)
def test_try_this_more_fast_memory_fewer_passes():
    assert "from 128 to 512" in FLASH_TRY_THIS[2] and "640 to 384" in FLASH_TRY_THIS[2]
    small, large = run_flash(FlashConfig(sram=128)), run_flash(FlashConfig(sram=512))
    assert (small.block_c, large.block_c) == (8, 16)
    assert (len({t.j for t in small.tiles}), len({t.j for t in large.tiles})) == (2, 1)
    assert (small.traffic.total, large.traffic.total) == (640, 384)
    assert small.standard_traffic.total == large.standard_traffic.total == 1280
