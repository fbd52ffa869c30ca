"""Record the bundled lessons' training runs (attnviz.lessons.recordings): every job a lesson
step trains, trained here on the CPU to its end, seeded as the page's run is, and written to
lessons/recordings/<hash>.safetensors + .json; recordings no step uses any more are removed.

    python -m scripts.record_runs            # the missing ones
    python -m scripts.record_runs --all      # every one again
"""

from __future__ import annotations

import sys
import time

import torch

from attnviz.lessons.recordings import RECORDINGS, lesson_jobs, record
from attnviz.training.recording import save


def main(argv: list[str]) -> None:
    torch.set_num_threads(1)
    RECORDINGS.mkdir(parents=True, exist_ok=True)
    jobs = lesson_jobs()
    for stem, (page, job, steps) in jobs.items():
        where = ", ".join(f"L{slug[:2]} s{n}" for slug, n in steps)
        if stem.with_suffix(".json").exists() and "--all" not in argv:
            print(f"kept     {stem.name}  {page}  ({where})")
            continue
        began = time.perf_counter()
        tensors, meta = save(stem, record(job))
        kb = (tensors.stat().st_size + meta.stat().st_size) / 1024
        took = time.perf_counter() - began
        print(f"recorded {stem.name}  {page}  ({where}): {kb:,.0f} KB in {took:.0f} s")
    for path in sorted(RECORDINGS.glob("*")):
        if path.with_suffix("") not in jobs:
            path.unlink()
            print(f"removed  {path.name}: no lesson step trains it")


if __name__ == "__main__":
    main(sys.argv[1:])
