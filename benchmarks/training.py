"""Steps/s of the kernel-smoother training: worker process alone, three jobs at once, and the
same loop in a thread of this process beside two threads busy building Plotly JSON (what a
Streamlit server does for other users). Prints a table with ratios against "process, alone".

    python -m benchmarks.training [--seconds 4]
"""

from __future__ import annotations

import argparse
import threading
import time

import numpy as np

from attnviz.figures.base import matrix_figure
from attnviz.topics.kernel_smoother.task import KernelJobSpec, KernelTrainable
from attnviz.training.jobs import JobPool
from attnviz.training.messages import RunStatus
from attnviz.training.trainer import TrainConfig, Trainer

CONFIG = TrainConfig(lr=0.01, steps=10_000_000, eval_every=1000, snapshot_every=1000)


def measure_jobs(pool: JobPool, count: int, seconds: float) -> list[float]:
    jobs = [pool.submit(KernelJobSpec(), CONFIG) for _ in range(count)]
    while any(j.poll().status in (RunStatus.QUEUED, RunStatus.STARTING) for j in jobs):
        time.sleep(0.05)
    start_steps = [j.poll().step for j in jobs]
    time.sleep(seconds)
    rates = [(j.poll().step - s0) / seconds for j, s0 in zip(jobs, start_steps, strict=True)]
    for j in jobs:
        j.stop()
    return rates


def busy_plotly(stop: threading.Event) -> None:
    m = np.random.default_rng(0).normal(size=(8, 8))
    while not stop.is_set():
        matrix_figure(m, "busy").to_json()


def measure_thread(seconds: float, busy_threads: int) -> float:
    import torch

    torch.set_num_threads(1)
    trainer = Trainer(KernelTrainable(KernelJobSpec()), CONFIG)
    stop = threading.Event()
    helpers = [threading.Thread(target=busy_plotly, args=(stop,)) for _ in range(busy_threads)]
    counted = {}

    def loop():
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            trainer.step()
        counted["steps"] = trainer.step_count

    worker = threading.Thread(target=loop)
    for t in helpers:
        t.start()
    worker.start()
    worker.join()
    stop.set()
    for t in helpers:
        t.join()
    return counted["steps"] / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()
    pool = JobPool(max_workers=3)
    alone = measure_jobs(pool, 1, args.seconds)[0]
    three = measure_jobs(pool, 3, args.seconds)
    thread_alone = measure_thread(args.seconds, 0)
    thread_busy = measure_thread(args.seconds, 2)
    rows = [
        ("worker process, alone", alone),
        ("worker process, 3 jobs at once (each)", float(np.mean(three))),
        ("worker process, 3 jobs at once (total)", float(np.sum(three))),
        ("thread in the server process, alone", thread_alone),
        ("thread beside 2 threads building Plotly JSON", thread_busy),
    ]
    print(f"{'setting':<46} {'steps/s':>9} {'ratio':>7}")
    for name, rate in rows:
        print(f"{name:<46} {rate:>9.0f} {rate / alone:>7.2f}")
    pool.shutdown()


if __name__ == "__main__":
    main()
