"""The thread policy of a process that shares its machine (the server, a training worker, a
notebook): set before torch loads, by `import attnviz` (attnviz/__init__.py).

OpenMP's threads spin while they wait for work by default; beside other busy processes (a hall
of sessions, a training worker, any other program) torch's threads then spin against each other
and a sweep ran 6–17× slower where a fair share of the CPU predicts 2× (issue 55). The policy:
`OMP_WAIT_POLICY=PASSIVE` (a waiting thread sleeps) unless the environment says otherwise, and
torch's intra-op thread count from `ATTNVIZ_THREADS` (a number; unset or "torch": torch's own,
one per core).

Even sleeping, two threads beside two busy processes wait on each other: a sweep took 4.3× its
idle time where a fair share predicts 1.5×, and with one thread 1.5×, but one thread is slower
when the machine is idle (the lens 0.39 s against 0.21 s). So the real-model operations made of
many small steps (`fitted`: a forward pass, the patching sweeps, attribution) take, at their
start, as many threads as cores are free then: the cores less the other tasks running (the
kernel's count, /proc/loadavg), at most the policy's count. The logit lens, a few
large products, keeps every thread: the kernel shares a core by thread, not by process, and a
large product loses little waiting (beside 2 busy: 0.52 s with 2 threads, 0.60 with 1).
Figures: benchmarks/real_models.py, ARCHITECTURE.md."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import ParamSpec, TypeVar

THREADS_ENV = "ATTNVIZ_THREADS"
LOADAVG = Path("/proc/loadavg")
P = ParamSpec("P")
R = TypeVar("R")


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


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def free_cores(loadavg: str | None = None, total: int | None = None) -> int | None:
    """Cores not taken by other running tasks now: `total` (this process's cores) less the tasks
    the kernel counts as running (the 4th field of /proc/loadavg, `loadavg`: "running/all")
    besides the caller, another session's model call in this server among them; at least 1.
    None where the system does not say (not Linux)."""
    try:
        text = LOADAVG.read_text(encoding="ascii") if loadavg is None else loadavg
        running = int(text.split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(1, (cores() if total is None else total) - (running - 1))


def fit_threads(free: int | None = None) -> int:
    """Give torch as many intra-op threads as cores are free (`free`, or now), at most the
    policy's count (`policy_count`); the count set."""
    import torch

    ceiling = policy_count()
    free = free_cores() if free is None else free
    count = ceiling if free is None else max(1, min(ceiling, free))
    if torch.get_num_threads() != count:
        torch.set_num_threads(count)
    return count


def policy_count() -> int:
    """The policy's thread count: ATTNVIZ_THREADS, else OMP_NUM_THREADS (torch's own default
    reads it: the test suite's one thread), else one per core."""
    omp = os.environ.get("OMP_NUM_THREADS", "").strip()
    return threads_asked(os.environ) or (int(omp) if omp.isdigit() and int(omp) else cores())


def fitted(func: Callable[P, R]) -> Callable[P, R]:
    """`func` with torch's threads fitted to the free cores at each call's start, and the
    policy's count back at its end (a switch costs ~0.1 ms). Back to the policy's, not to the
    count found: torch keeps a count per thread, and a thread that starts while another call
    is fitted takes that call's count as its own; putting back what it found left the lens and
    every later call on one thread."""

    @functools.wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        import torch

        fit_threads()
        try:
            return func(*args, **kwargs)
        finally:
            if torch.get_num_threads() != policy_count():
                torch.set_num_threads(policy_count())

    return run
