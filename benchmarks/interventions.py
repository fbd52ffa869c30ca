"""The interventions page's speed and its numbers on the names task (issue 41), on the bundled
SmolLM2-135M: the clean and the corrupted prompt's logit differences (' Mary' − ' John'), the
exact sweep of the residual stream (layer × position; cells before the first change are the
corrupted run itself and are not run, as on the page) beside the same sweep running every cell,
attribution patching (one forward and one backward pass), the exact sweep of every head, and
direct logit attribution's largest |Σ parts − whole|.

Goals on this 2-core machine: the sweep ≤ 5 s on the ~15-token prompt, attribution patching
≤ 1 s. The last line:

    ioi: clean <x>, corrupted <y>, best patch recovers <r> %, DLA error <e>, sweep <s> s

    python -m benchmarks.interventions               # torch on both cores, as a server's
    python -m benchmarks.interventions --threads 1
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from attnviz.topics.interventions.params import NAMES, NAMES_SWAPPED


def timed(work) -> tuple[float, object]:
    start = time.perf_counter()
    out = work()
    return time.perf_counter() - start, out


def best_of(runs: int, work) -> tuple[float, object]:
    """The fastest of `runs` timings (the first run also warms caches)."""
    results = [timed(work) for _ in range(runs)]
    return min(s for s, _ in results), results[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2, help="timings per figure (the best kept)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from attnviz.topics.interventions import attribution, pairs, patching
    from attnviz.topics.interventions.acts import capture
    from attnviz.topics.language_model.bundled import bundled_llm

    lm = bundled_llm()
    pair = pairs.make_pair(lm, NAMES, NAMES_SWAPPED, "", "")
    clean, corrupt = capture(lm, pair.clean), capture(lm, pair.corrupt)
    x, y = clean.diff(pair.right, pair.wrong), corrupt.diff(pair.right, pair.wrong)
    t = len(pair.clean)
    print(
        f"pair: {t} tokens, answers {lm.readable([pair.right, pair.wrong])}, differ {pair.differ}"
    )

    sweep_s, sweep = best_of(args.runs, lambda: patching.resid_sweep(lm, pair, clean, corrupt))
    every_s, every = best_of(1, lambda: patching.resid_sweep(lm, pair, clean, corrupt, None, True))
    same = float(np.abs(sweep.diff - every.diff).max())
    print(
        f"residual sweep: {sweep.ran} runs {sweep_s:.2f} s; every one of {every.ran} cells "
        f"run {every_s:.2f} s ({every_s / sweep_s:.1f}x); max |difference| {same:.1e}"
    )
    attr_s, _ = best_of(args.runs, lambda: attribution.attribution(lm, pair, clean, corrupt))
    forward_s, _ = best_of(args.runs, lambda: capture(lm, pair.corrupt))
    print(f"attribution patching: {attr_s:.2f} s (one forward pass with hooks {forward_s:.2f} s)")
    heads_s, heads = best_of(1, lambda: patching.head_sweep(lm, pair, clean, corrupt))
    print(f"head sweep: {heads.ran} runs {heads_s:.2f} s")
    dla = attribution.direct_logit_attribution(lm, clean, pair)
    error = abs(dla.total - dla.whole)
    best = float(patching.recovered(sweep.diff, x, y).max()) * 100
    print(
        f"ioi: clean {x:.2f}, corrupted {y:.2f}, best patch recovers {best:.1f} %, "
        f"DLA error {error:.1e}, sweep {sweep_s:.2f} s"
    )


if __name__ == "__main__":
    main()
