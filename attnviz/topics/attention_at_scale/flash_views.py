"""The FlashAttention and KV-cache parts of the Attention at scale page, from the page's values:
configs, views (figures by name, each prefixed `sc_`) and notes (short markdown lines).

`values` is a Mapping holding FLASH_PARAMS' keys (attnviz/topics/attention_at_scale/flash_params.py)
plus "seed" (and "device", unused: both parts are a few milliseconds on the CPU). Runs are cached
by config (lru_cache in flash.py and kv_cache.py), so moving the tile slider only redraws.
The figures themselves are built from arrays in attnviz/figures/scale_flash.py.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.scale_flash import (
    error_figure,
    kv_memory_figure,
    kv_work_figure,
    running_figure,
    tiles_figure,
)
from attnviz.topics.attention_at_scale.flash import FlashConfig, FlashRun, run_flash
from attnviz.topics.attention_at_scale.flash_params import MAX_TILES
from attnviz.topics.attention_at_scale.kv_cache import FLOAT_BYTES, KVConfig, run_kv

FLASH_VIEWS = ("sc_flash_tiles", "sc_flash_running", "sc_flash_error")
KV_VIEWS = ("sc_kv_work", "sc_kv_total", "sc_kv_memory")


def small(x: float) -> str:
    """A difference as "2.4e−7" (0 as "0", from 0.001 on as "1.52")."""
    if x == 0 or x >= 1e-3:
        return f"{x:.3g}"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}".replace("-", "−")


def flash_config(values: Mapping[str, Any]) -> FlashConfig:
    return FlashConfig(
        n=int(values["sc_n"]),
        d=int(values["sc_d"]),
        sram=int(values["sc_sram"]),
        seed=int(values.get("seed", 0)),
    )


def tiles_done(values: Mapping[str, Any], run: FlashRun) -> int:
    """The tile slider's value within 0..number of tiles."""
    return max(0, min(int(values["sc_tile"]), len(run.tiles)))


def row_stats(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's max and Σ exp(s − max), computed from the whole row at once: (N,), (N,)."""
    top = scores.max(axis=1)
    return top, np.exp(scores - top[:, None]).sum(axis=1)


def _state(run: FlashRun, t: int):
    """(m, ℓ, O, rows of the current tile or None) after `t` tiles."""
    if t == 0:
        n, d = run.q.shape
        return np.full(n, -np.inf), np.zeros(n), np.zeros((n, d)), None
    tile = run.tiles[t - 1]
    return tile.m, tile.ell, tile.out, tile.rows


def flash_views(values: Mapping[str, Any], only: Collection[str] | None = None) -> dict:
    """{"sc_flash_tiles", "sc_flash_running", "sc_flash_error"} -> figure (those in `only`)."""
    run = run_flash(flash_config(values))
    t, total = tiles_done(values, run), len(run.tiles)
    m, ell, out, rows = _state(run, t)
    want = set(FLASH_VIEWS if only is None else only)
    views: dict[str, go.Figure] = {}
    if "sc_flash_tiles" in want:
        rects = [(*tile.rows, *tile.cols) for tile in run.tiles[:t]]
        where = f"query block {run.tiles[t - 1].i} × key block {run.tiles[t - 1].j}" if t else ""
        title = f"Scores s = qᵀk/√d, tile {t} of {total}: {where}" if t else "No tile computed yet"
        current = rects[-1] if rects else None
        views["sc_flash_tiles"] = tiles_figure(
            run.scores, run.block_r, run.block_c, rects[:-1], current, title
        )
    if "sc_flash_running" in want:
        top, total_exp = row_stats(run.scores)
        title = f"Running max and sum per query row after tile {t} of {total}"
        views["sc_flash_running"] = running_figure(m, ell, top, total_exp, rows, title)
    if "sc_flash_error" in want:
        err = np.abs(out - run.standard_out).max(axis=1)  # (N,)
        title = f"Distance to standard attention by row, tile {t}: max {small(err.max())}"
        views["sc_flash_error"] = error_figure(err, rows, title)
    return views


def flash_notes(values: Mapping[str, Any]) -> list[str]:
    """The blocks and why, the slow-memory traffic of both algorithms, the final difference."""
    run, c = run_flash(flash_config(values)), flash_config(values)
    t_r, t_c = math.ceil(c.n / run.block_r), math.ceil(c.n / run.block_c)
    std, tiled = run.standard_traffic.total, run.traffic.total
    ratio = f"{std / tiled:.1f}× fewer" if tiled <= std else f"{tiled / std:.1f}× more"
    notes = [
        f"Blocks from M = {c.sram}: B_c = ⌈M/4d⌉ = {math.ceil(c.sram / (4 * c.d))} key rows, "
        f"B_r = min(B_c, d) = {run.block_r} query rows (at most N = {c.n}) → "
        f"{t_r} × {t_c} = {len(run.tiles)} tiles, key blocks in the outer loop "
        "(Dao et al. 2022, Algorithm 1).",
        f"Reads + writes of slow memory, in numbers: standard {std:,} · tiled {tiled:,} "
        f"({ratio}); standard writes and rereads the N × N scores and weights.",
        f"After all tiles, max |O_tiled − O_standard| = {small(run.max_error)} (float32).",
    ]
    if len(run.tiles) > MAX_TILES:
        notes.append(
            f"This run has {len(run.tiles):,} tiles; the slider stops at {MAX_TILES}: "
            "raise M for larger tiles."
        )
    return notes


def kv_config(values: Mapping[str, Any]) -> KVConfig:
    return KVConfig(
        steps=int(values["sc_kv_len"]),
        n_layer=int(values["sc_kv_layers"]),
        n_head=int(values["sc_kv_heads"]),
        seed=int(values.get("seed", 0)),
    )


def kv_views(values: Mapping[str, Any], only: Collection[str] | None = None) -> dict:
    """{"sc_kv_work", "sc_kv_total", "sc_kv_memory"} -> figure (those in `only`)."""
    run = run_kv(kv_config(values))
    tokens = np.arange(1, run.config.steps + 1)
    use = bool(values["sc_kv_cache"])
    want = set(KV_VIEWS if only is None else only)
    views: dict[str, go.Figure] = {}
    if "sc_kv_work" in want:
        views["sc_kv_work"] = kv_work_figure(
            tokens, run.work_full, run.work_cached, use, "Attention work of each decoding step"
        )
    if "sc_kv_total" in want:
        full, cached = np.cumsum(run.work_full), np.cumsum(run.work_cached)
        title = "Attention work in total, up to each step"
        views["sc_kv_total"] = kv_work_figure(tokens, full, cached, use, title)
    if "sc_kv_memory" in want:
        title = "KV cache memory after each token"
        views["sc_kv_memory"] = kv_memory_figure(tokens, run.cache_bytes, title)
    return views


def kv_notes(values: Mapping[str, Any]) -> list[str]:
    """The logits' agreement, the total work both ways (the path in use first), the cache size."""
    run = run_kv(kv_config(values))
    c = run.config
    full, cached = int(run.work_full.sum()), int(run.work_cached.sum())
    with_cache = f"with the cache {cached:,}"
    without = f"without {full:,}"
    first, second = (with_cache, without) if values["sc_kv_cache"] else (without, with_cache)
    size = int(run.cache_bytes[-1])
    return [
        f"{c.steps} tokens decoded by a tiny untrained causal transformer ({c.n_layer} layers × "
        f"{c.n_head} heads, d_model = {c.d_model}): the same logits with and without the cache "
        f"(max difference {small(run.max_difference)}).",
        f"Attention multiply-adds in all: {first} · {second} ({full / cached:.1f}× more without).",
        f"Cache after {c.steps} tokens: 2 (K, V) × {c.n_layer} layers × {c.n_head} heads × "
        f"{c.steps} tokens × {c.d_head} (d_head) × {FLOAT_BYTES} bytes = {size:,} bytes "
        f"({size / 1024:.1f} KiB).",
    ]
