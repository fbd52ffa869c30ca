"""The cost of one attention layer as the input grows: naive attention (the T × T scores and
weights materialised), PyTorch's fused SDPA and linear attention (φ = elu + 1, φ(K)ᵀV summed
once), batch 1, 4 heads of width 64, at 64 … 8,192 tokens (naive up to 4,096 on a CPU): median
time, peak memory (CUDA: measured; CPU: the bytes each allocates, computed), the log–log slopes
on the upper half of the lengths, and where linear attention overtakes SDPA.

    python -m benchmarks.scale                  # CPU, 1 thread
    python -m benchmarks.scale --device cuda    # a GPU: naive up to 8,192, memory measured

The measurement itself lives in attnviz/topics/attention_at_scale/cost.py: the page runs it live.
"""

from __future__ import annotations

import argparse

import torch

from attnviz.topics.attention_at_scale.cost import (
    ALGORITHMS,
    D_HEAD,
    HEADS,
    LENGTHS,
    crossover_sentence,
    measure,
    slopes,
)


def table(rows: list[dict]) -> str:
    lengths = sorted({r["length"] for r in rows})
    by = {(r["algorithm"], r["length"]): r for r in rows}
    head = f"{'tokens':>7}" + "".join(f"{a + ' ms':>14}{a + ' MiB':>14}" for a in ALGORITHMS)
    lines = [head]
    for t in lengths:
        cells = []
        for a in ALGORITHMS:
            r = by.get((a, t))
            cells += [f"{r['ms']:>14.3f}", f"{r['bytes'] / 2**20:>14.2f}"] if r else [" " * 28]
        lines.append(f"{t:>7}" + "".join(cells))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=0.2, help="timing per length")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = measure(LENGTHS, args.device, seconds=args.seconds, min_repeats=3)
    memory = "measured peak" if rows[0]["measured"] else "computed, not measured"
    print(
        f"one attention layer, batch 1, {HEADS} heads × {D_HEAD}, on {args.device} "
        f"({args.threads} thread(s)); memory {memory}"
    )
    print(table(rows))
    time_slopes, memory_slopes = slopes(rows, "ms"), slopes(rows, "bytes")
    print("log-log slopes on the upper half of the lengths:")
    for a in ALGORITHMS:
        print(f"  {a:>7}: time {time_slopes[a]:.2f}, memory {memory_slopes[a]:.2f}")
    print(crossover_sentence(rows))


if __name__ == "__main__":
    main()
