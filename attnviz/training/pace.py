"""Slow motion: how long a training worker waits before its next step so that a run goes no
faster than a cap of steps per second (a class can watch it unfold)."""

from __future__ import annotations

SPEEDS = (5, 20, 50, 0)  # steps per second a page offers, slowest first; 0 = as fast as it can


def pace_delay(steps_taken: int, elapsed: float, cap: float) -> float:
    """Seconds to wait before the next step: `steps_taken` steps in `elapsed` seconds since the
    pace mark, at most `cap` steps per second (0 or less: no cap, never wait).

    The next step may start when steps_taken / cap seconds have passed since the mark; the wait
    is never negative. A stretch that fell behind would be made up with a burst if the mark
    stayed put: `pace_mark` moves it."""
    if cap <= 0:
        return 0.0
    return max(0.0, steps_taken / cap - elapsed)


def pace_mark(mark: tuple[float, int], now: float, step: int, cap: float) -> tuple[float, int]:
    """The (time, step) a worker counts slow motion from: `mark` unless the run has fallen more
    than one step behind it (a stalled worker, a busy machine), then (now, step), so that the
    lost time is not made up with a burst of steps faster than `cap`."""
    mark_time, mark_step = mark
    if cap > 0 and now - mark_time > (step - mark_step + 1) / cap:
        return (now, step)
    return mark


def speed_text(cap: float) -> str:
    """How a cap is shown: "max" for none, "5 steps/s" otherwise."""
    return "max" if cap <= 0 else f"{cap:g} steps/s"
