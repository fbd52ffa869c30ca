"""The cost of one attention layer as the input grows, measured on a device: naive attention
(softmax(QKᵀ/√d)V with its (T × T) matrices), PyTorch's fused SDPA and linear attention, at
batch 1, 4 heads of width 64. Time: the median of repeats (training.timing.median_seconds).
Peak memory: on CUDA measured (torch.cuda.max_memory_allocated above what was allocated before);
on a CPU computed: the bytes of the tensors each algorithm allocates that grow with T (the CPU
profiler's allocation events proved unreliable here). Log–log slopes by least squares on the
upper half of the lengths, and the crossover in a sentence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor

from attnviz.topics.attention_at_scale.linear import linear_attention_fast
from attnviz.training.timing import median_seconds

LENGTHS = (64, 128, 256, 512, 1024, 2048, 4096, 8192)
HEADS, D_HEAD, BATCH = 4, 64, 1
NAIVE_CPU_MAX = 4096  # naive's (T × T) matrices at 8192: 2 × 1 GiB and seconds a call on a CPU
ALGORITHMS = ("naive", "SDPA", "linear")
FLOAT_BYTES = 4


def naive_attention(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    """softmax(QKᵀ/√d)V materialising the scores and the weights, (B, H, T, T) each."""
    scores = (q * q.shape[-1] ** -0.5) @ k.transpose(-2, -1)  # (B, H, T, T)
    return torch.softmax(scores, dim=-1) @ v  # (B, H, T, d)


def sdpa(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    """PyTorch's fused kernel (flash or memory-efficient where the device has one)."""
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)


KERNELS: dict[str, Callable[[Tensor, Tensor, Tensor], Tensor]] = {
    "naive": naive_attention,
    "SDPA": sdpa,
    "linear": linear_attention_fast,
}


def computed_bytes(algorithm: str, t: int, heads: int = HEADS, d: int = D_HEAD) -> int:
    """Bytes of the float32 tensors `algorithm` allocates that grow with T (batch 1): naive the
    scores and weights (H·T² each), the scaled q and the output (H·T·d each); SDPA its output and
    row statistics (its tiles do not grow with T); linear φ(Q), φ(K), the numerator and output
    (H·T·d each), the denominator (H·T) and φ(K)ᵀV (H·d·d)."""
    htd, ht = heads * t * d, heads * t
    counts = {
        "naive": 2 * heads * t * t + 2 * htd,
        "SDPA": htd + ht,
        "linear": 4 * htd + ht + heads * d * d,
    }
    return counts[algorithm] * FLOAT_BYTES


def _peak_cuda(fn: Callable[[], object], device: str) -> int:
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return int(torch.cuda.max_memory_allocated(device) - before)


def lengths_for(algorithm: str, device: str, lengths: Sequence[int] = LENGTHS) -> list[int]:
    """The lengths `algorithm` is measured at: naive stops at NAIVE_CPU_MAX on a CPU."""
    cuda = str(device).startswith("cuda")
    cap = NAIVE_CPU_MAX if algorithm == "naive" and not cuda else math.inf
    return [t for t in lengths if t <= cap]


def measure(
    lengths: Sequence[int] = LENGTHS,
    device: str = "cpu",
    seconds: float = 0.05,
    algorithms: Sequence[str] = ALGORITHMS,
    min_repeats: int = 1,
) -> list[dict]:
    """One row per (algorithm, length): {"algorithm", "length", "ms", "bytes", "measured" (True:
    CUDA's peak; False: computed_bytes), "device"}."""
    cuda = str(device).startswith("cuda")
    rows = []
    for algorithm in algorithms:
        fn = KERNELS[algorithm]
        for t in lengths_for(algorithm, device, lengths):
            gen = torch.Generator().manual_seed(t)
            q, k, v = (
                torch.randn(BATCH, HEADS, t, D_HEAD, generator=gen).to(device) for _ in "qkv"
            )
            with torch.inference_mode():
                call = lambda q=q, k=k, v=v, fn=fn: fn(q, k, v)  # noqa: E731
                ms = median_seconds(call, device, seconds, min_repeats) * 1e3
                peak = _peak_cuda(call, device) if cuda else computed_bytes(algorithm, t)
            rows.append(
                {
                    "algorithm": algorithm,
                    "length": t,
                    "ms": ms,
                    "bytes": peak,
                    "measured": cuda,
                    "device": str(device),
                }
            )
    return rows


def slope(lengths: Sequence[float], values: Sequence[float]) -> float:
    """The least-squares slope of log(values) against log(lengths) over the upper half of the
    lengths (the larger ones: fixed overheads fade): ≈ 2 for T², ≈ 1 for T."""
    x, y = np.log(np.asarray(lengths, float)), np.log(np.asarray(values, float))
    order = np.argsort(x)
    keep = order[len(order) // 2 :] if len(order) >= 4 else order
    if len(keep) < 2:
        return float("nan")
    return float(np.polyfit(x[keep], y[keep], 1)[0])


def slopes(rows: list[dict], key: str = "ms") -> dict[str, float]:
    """Per algorithm, the log–log slope of `key` ("ms" or "bytes") against the length."""
    found = {}
    for algorithm in dict.fromkeys(r["algorithm"] for r in rows):
        mine = [r for r in rows if r["algorithm"] == algorithm]
        found[algorithm] = slope([r["length"] for r in mine], [r[key] for r in mine])
    return found


def crossover(rows: list[dict], fast: str = "linear", slow: str = "SDPA") -> int | None:
    """The first length from which `fast` takes less time than `slow` at every longer length
    both were measured at (None: never, or not at the longest)."""
    a = {r["length"]: r["ms"] for r in rows if r["algorithm"] == fast}
    b = {r["length"]: r["ms"] for r in rows if r["algorithm"] == slow}
    both = sorted(set(a) & set(b))
    found = None
    for t in reversed(both):
        if a[t] >= b[t]:
            break
        found = t
    return found


def crossover_sentence(rows: list[dict], fast: str = "linear", slow: str = "SDPA") -> str:
    """Where `fast` overtakes `slow` on this device, in a sentence."""
    both = sorted(
        {r["length"] for r in rows if r["algorithm"] == fast}
        & {r["length"] for r in rows if r["algorithm"] == slow}
    )
    if not both:
        return f"{fast} and {slow} were not measured at a common length."
    device = rows[0]["device"]
    found = crossover(rows, fast, slow)
    if found is None:
        return f"On {device}, {slow} stays faster than {fast} up to {both[-1]} tokens."
    if found == both[0]:
        return f"On {device}, {fast} is faster than {slow} at every length from {found} tokens."
    return (
        f"On {device}, {fast} attention overtakes {slow} at {found} tokens and stays faster up to "
        f"{both[-1]}: its cost grows as T, the softmax's as T²."
    )
