"""The thread policy of a process that shares its machine (the server, a training worker, a
notebook): set before torch loads, by `import attnviz` (attnviz/__init__.py).

OpenMP's threads spin while they wait for work by default; beside other busy processes (a hall
of sessions, a training worker, any other program) torch's threads then spin against each other
and a sweep ran 6–17× slower where a fair share of the CPU predicts 2× (issue 55). The policy:
`OMP_WAIT_POLICY=PASSIVE` (a waiting thread sleeps) unless the environment says otherwise, and
torch's intra-op thread count from `ATTNVIZ_THREADS` (a number; unset or "torch": torch's own,
one per core). Figures: benchmarks/real_models.py, ARCHITECTURE.md."""

from __future__ import annotations

import os
from collections.abc import MutableMapping

THREADS_ENV = "ATTNVIZ_THREADS"


def apply_thread_policy(environ: MutableMapping[str, str] | None = None) -> None:
    """Set OpenMP's wait policy (before torch loads: OpenMP reads it once) and, when
    ATTNVIZ_THREADS names a number, torch's thread count (then torch is imported)."""
    env = os.environ if environ is None else environ
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    count = threads_asked(env)
    if count is not None:
        import torch

        torch.set_num_threads(count)


def threads_asked(environ: MutableMapping[str, str]) -> int | None:
    """The thread count ATTNVIZ_THREADS names (≥ 1), or None for torch's own."""
    text = environ.get(THREADS_ENV, "").strip()
    return int(text) if text.isdigit() and int(text) >= 1 else None
