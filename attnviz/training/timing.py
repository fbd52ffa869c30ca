"""Wall-clock timing of a callable on a device: the median of repeats, CUDA work waited for.
One timer for every measured figure (the recurrence page's RNN vs attention, the scale page's
cost curves, the benchmarks)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch


def median_seconds(
    fn: Callable[[], object], device: str, seconds: float = 0.1, min_repeats: int = 3
) -> float:
    """Median wall time of `fn()` over repeats filling about `seconds` (at least `min_repeats`),
    after one warm-up call; CUDA work is waited for before each clock reading."""
    sync = torch.cuda.synchronize if str(device).startswith("cuda") else (lambda: None)
    fn()
    sync()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < min_repeats or time.perf_counter() - start < seconds:
        tick = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - tick)
        if len(times) >= 200:
            break
    return statistics.median(times)
