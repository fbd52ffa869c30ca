"""Every training page's job (its defaults, as Start submits it) trained here on each device,
the same steps and seed: seconds, steps/s and the ratio against the CPU (one thread) in the same
run, with the loss at the end. Pages come from the page table.

    python -m benchmarks.devices [--steps 100] [--devices cpu cuda]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import torch

from attnviz.topics.live import train
from attnviz.topics.registry import scene_pages


def timed(scene, device: str, steps: int) -> tuple[float, float]:
    """(seconds, last training loss) of the page's default job on `device` for `steps` steps."""
    job = scene.config(scene.values(device=device))
    job = replace(
        job, train=replace(job.train, steps=steps, eval_every=steps, snapshot_every=steps)
    )
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    run = train(job, threads=1)
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, run.history.train_loss[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--devices", nargs="+", default=["cpu"])
    args = parser.parse_args()
    if "cuda" in args.devices:
        print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    print(f"{'page':<20} {'device':<6} {'s':>7} {'steps/s':>9} {'× cpu':>7} {'last loss':>10}")
    for entry in scene_pages():
        if not entry.scene.trains:
            continue
        base = None
        for device in args.devices:
            timed(entry.scene, device, 2)  # warm-up: imports, data, kernels
            seconds, loss = timed(entry.scene, device, args.steps)
            base = base or seconds
            rate = args.steps / seconds
            print(
                f"{entry.url:<20} {device:<6} {seconds:>7.2f} {rate:>9.0f} "
                f"{base / seconds:>7.2f} {loss:>10.4f}"
            )


if __name__ == "__main__":
    main()
