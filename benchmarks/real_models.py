"""The real-model engine's speed on an idle machine and beside busy processes (issue 55): on the
bundled SmolLM2-135M, a new ~12-token prompt's run and default views, the logit lens, the exact
residual sweep and every-head sweep of the names pair, and attribution patching. With `--busy N`
the same operations are timed first on the idle machine, then beside N CPU-bound processes the
benchmark starts and stops itself, and each is reported as its busy time over its idle time,
against the fair share: with N other runnable processes on C cores this one is due C / (N + 1)
of them, so a fair slowdown is (N + 1) / C (at least 1).

The thread policy (attnviz/core/threads.py) is applied as the server applies it, unless
`--policy` asks for another: `default` (torch's own: every core, OpenMP's threads spinning while
they wait), `passive` (every core, OpenMP's threads sleeping while they wait) or `one` (one
torch thread). The last line:

    real: busy <N>, prompt <p> s, lens <l> s, resid sweep <r> s, head sweep <h> s,
          attribution <a> s, slowdown <s>x of fair share

    python -m benchmarks.real_models                  # idle
    python -m benchmarks.real_models --busy 2         # idle, then beside 2 busy processes
    python -m benchmarks.real_models --busy 2 --policy default
    python -m benchmarks.real_models --device cuda    # the model on a GPU (no --busy there)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from benchmarks.interventions import best_of

SPIN = "while True: pass"
PROMPTS = [  # ~12 tokens each
    f"The {a} walked past the old {b} and looked at the {c} by the sea"
    for a, b, c in zip(
        ("farmer", "poet", "child", "doctor", "sailor", "teacher", "baker", "pilot"),
        ("bridge", "tower", "church", "mill", "garden", "market", "castle", "harbour"),
        ("boats", "birds", "clouds", "rocks", "waves", "lights", "ships", "stars"),
        strict=True,
    )
]
OPERATIONS = ("prompt", "lens", "resid sweep", "head sweep", "attribution")


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, default=0, help="CPU-bound processes beside it")
    parser.add_argument(
        "--policy", choices=("server", "default", "passive", "one"), default="server"
    )
    parser.add_argument("--runs", type=int, default=2, help="timings per figure (the best kept)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    return parser.parse_args()


def apply_policy(policy: str) -> None:
    """Before torch loads: the thread policy to measure."""
    if policy == "default":  # torch as it comes: no policy applied
        os.environ.pop("OMP_WAIT_POLICY", None)
        return
    if policy == "passive":
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
        os.environ["ATTNVIZ_THREADS"] = "torch"
    elif policy == "one":
        os.environ["ATTNVIZ_THREADS"] = "1"
    from attnviz.core.threads import apply_thread_policy

    apply_thread_policy()


def operations(device: str = "cpu"):
    """{name: a callable doing it once, uncached}, the model on `device`."""
    from attnviz.topics.interventions import attribution, pairs, patching
    from attnviz.topics.interventions.acts import capture
    from attnviz.topics.interventions.params import NAMES, NAMES_SWAPPED
    from attnviz.topics.language_model import forward, readouts
    from attnviz.topics.language_model.bundled import bundled_llm
    from attnviz.topics.language_model.scene import SCENE

    lm = bundled_llm(device)
    pair = pairs.make_pair(lm, NAMES, NAMES_SWAPPED, "", "")
    acts = capture(lm, pair.clean), capture(lm, pair.corrupt)
    prompts = iter(PROMPTS * 8)  # a new prompt each time: the scene and the lens remember
    fwds = [forward.run(lm, forward.encode(lm, text)[0]) for text in PROMPTS]

    def prompt() -> None:
        values = SCENE.values(lm_text=next(prompts), device=device)
        SCENE.views(SCENE.run(SCENE.config(values)), values)

    return {
        "prompt": prompt,
        "lens": lambda: readouts.lens_view(lm, fwds.pop()),
        "resid sweep": lambda: patching.resid_sweep(lm, pair, *acts),
        "head sweep": lambda: patching.head_sweep(lm, pair, *acts),
        "attribution": lambda: attribution.attribution(lm, pair, *acts),
    }


def measure(work: dict, runs: int, label: str) -> dict[str, float]:
    figures = {name: best_of(runs, work[name])[0] for name in OPERATIONS}
    print(label + ": " + ", ".join(f"{name} {s:.2f} s" for name, s in figures.items()), flush=True)
    return figures


def beside_busy(count: int, work: dict, runs: int) -> dict[str, float]:
    """The figures beside `count` spinning processes (started here, always stopped)."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
    try:
        time.sleep(0.5)
        return measure(work, runs, f"beside {count} busy")
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def main() -> None:
    args = parse()
    apply_policy(args.policy)
    import torch

    cores = os.cpu_count() or 1
    print(
        f"policy {args.policy}: torch threads {torch.get_num_threads()}, "
        f"OMP_WAIT_POLICY {os.environ.get('OMP_WAIT_POLICY', 'unset')}, {cores} cores, "
        f"model on {args.device}"
    )
    work = operations(args.device)
    for name in OPERATIONS:  # torch's first-call costs, and the model's pages in memory
        work[name]()
    idle = measure(work, args.runs, "idle")
    shown = beside_busy(args.busy, work, args.runs) if args.busy else idle
    fair = max(1.0, (args.busy + 1) / cores)
    slowdown = max(shown[name] / idle[name] for name in OPERATIONS) / fair
    print(
        f"real: busy {args.busy}, prompt {shown['prompt']:.2f} s, lens {shown['lens']:.2f} s, "
        f"resid sweep {shown['resid sweep']:.2f} s, head sweep {shown['head sweep']:.2f} s, "
        f"attribution {shown['attribution']:.2f} s, slowdown {slowdown:.1f}x of fair share"
    )


if __name__ == "__main__":
    main()
