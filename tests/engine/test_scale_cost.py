"""The cost of one attention layer (attnviz.topics.attention_at_scale.cost) at tiny lengths: the
three kernels against the softmax written out and linear attention's explicit weights, the computed
bytes against the tensors the naive steps really allocate, the log–log slope on rows with a known
exponent, and the crossover found in rows written by hand."""

from __future__ import annotations

import math

import pytest
import torch

from attnviz.topics.attention_at_scale.cost import (
    KERNELS,
    computed_bytes,
    crossover,
    crossover_sentence,
    lengths_for,
    measure,
    slope,
    slopes,
)
from attnviz.topics.attention_at_scale.linear import linear_attention


def test_the_kernels_compute_attention():
    gen = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 2, 16, 8, generator=gen) for _ in "qkv")
    softmax = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), dim=-1) @ v
    torch.testing.assert_close(KERNELS["naive"](q, k, v), softmax)
    torch.testing.assert_close(KERNELS["SDPA"](q, k, v), softmax)
    torch.testing.assert_close(KERNELS["linear"](q, k, v), linear_attention(q, k, v))


def test_naive_bytes_are_the_tensors_its_steps_allocate():
    t, heads, d = 32, 4, 64
    q, k, v = (torch.randn(1, heads, t, d) for _ in "qkv")
    scaled = q * d**-0.5
    scores = scaled @ k.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    made = sum(x.numel() * x.element_size() for x in (scaled, scores, weights, out))
    assert computed_bytes("naive", t, heads, d) == made
    assert computed_bytes("SDPA", t, heads, d) == out.numel() * 4 + heads * t * 4


def test_slope_fits_the_upper_half_of_rows_with_a_known_exponent():
    lengths = [16, 32, 64, 128, 256, 512]
    values = [5.0, 5.0, 5.0, 3e-3 * 128**1.5, 3e-3 * 256**1.5, 3e-3 * 512**1.5]
    assert slope(lengths, values) == pytest.approx(1.5)  # the flat overhead below is left out
    rows = [{"algorithm": "a", "length": t, "ms": 2.0 * t**2} for t in lengths]
    assert slopes(rows) == {"a": pytest.approx(2.0)}


def test_measure_gives_a_row_per_algorithm_and_length_at_tiny_sizes():
    rows = measure((32, 64, 128), "cpu", seconds=0.001)
    assert [(r["algorithm"], r["length"]) for r in rows] == [
        (a, t) for a in ("naive", "SDPA", "linear") for t in (32, 64, 128)
    ]
    assert all(r["ms"] > 0 and not r["measured"] for r in rows)
    assert [r["bytes"] for r in rows[:3]] == [computed_bytes("naive", t) for t in (32, 64, 128)]
    assert lengths_for("naive", "cpu") == [64, 128, 256, 512, 1024, 2048, 4096]
    assert lengths_for("naive", "cuda")[-1] == 8192


def rows_of(times: dict[str, list[float]], lengths=(64, 128, 256, 512)) -> list[dict]:
    return [
        {"algorithm": a, "length": t, "ms": ms, "device": "cpu"}
        for a, series in times.items()
        for t, ms in zip(lengths, series, strict=True)
    ]


def test_the_crossover_is_where_linear_turns_faster_for_good():
    rows = rows_of({"SDPA": [1, 2, 4, 8], "linear": [2, 1, 5, 3]})
    assert crossover(rows) == 512  # faster at 128 too, but slower again at 256
    assert "overtakes SDPA at 512 tokens" in crossover_sentence(rows)
    never = rows_of({"SDPA": [1, 2, 4, 8], "linear": [2, 3, 5, 9]})
    assert crossover(never) is None
    assert "SDPA stays faster than linear up to 512 tokens" in crossover_sentence(never)
