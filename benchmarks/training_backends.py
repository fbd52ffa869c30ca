"""Seconds from submit to done for a 200-step job of the testing task (SlowSpec(0)): on the local
process pool and on a Ray head started on this machine (tests/support/ray_head.py). "first" is a
pool's first job (worker start, torch import), "warm" the median of the next `--repeats`.

    python -m benchmarks.training_backends [--steps 200] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from attnviz.training.backends import RayCluster
from attnviz.training.jobs import JobPool
from attnviz.training.testing_tasks import SlowSpec
from attnviz.training.trainer import TrainConfig
from tests.support.ray_head import local_ray_head


def seconds_to_done(pool: JobPool, steps: int) -> float:
    start = time.perf_counter()
    job = pool.submit(SlowSpec(0.0), TrainConfig(steps=steps))
    while not job.poll().finished:
        time.sleep(0.01)
    assert job.state.step == steps, job.state
    return time.perf_counter() - start


def measure(pool: JobPool, steps: int, repeats: int) -> tuple[float, float]:
    first = seconds_to_done(pool, steps)
    warm = statistics.median(seconds_to_done(pool, steps) for _ in range(repeats))
    pool.shutdown()
    return first, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    local = measure(JobPool(max_workers=1), args.steps, args.repeats)
    with local_ray_head(num_cpus=1) as head:
        ray = measure(JobPool(backend=RayCluster(head.address)), args.steps, args.repeats)
    print(f"{args.steps} steps, submit to done (s)   {'first':>7} {'warm':>7}")
    print(f"{'local process pool':<34} {local[0]:>7.2f} {local[1]:>7.2f}")
    print(f"{'Ray head on this machine':<34} {ray[0]:>7.2f} {ray[1]:>7.2f}")
    print(f"{'ratio Ray / local':<34} {ray[0] / local[0]:>7.2f} {ray[1] / local[1]:>7.2f}")


if __name__ == "__main__":
    main()
