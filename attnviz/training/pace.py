"""Slow motion: how long a training worker waits before its next step so that a run goes no
faster than a cap of steps per second (a class can watch it unfold)."""

from __future__ import annotations

SPEEDS = (5, 20, 50, 0)  # steps per second a page offers, slowest first; 0 = as fast as it can


def pace_delay(steps_taken: int, elapsed: float, cap: float) -> float:
    """Seconds to wait before the next step: `steps_taken` steps in `elapsed` seconds since the
    pace was last reset, at most `cap` steps per second (0 or less: no cap, never wait).

    The next step may start when steps_taken / cap seconds have passed, so over any stretch the
    rate is at most `cap`; a slow step is not made up for by a burst (the wait is never negative,
    and the worker resets the pace after a pause)."""
    if cap <= 0:
        return 0.0
    return max(0.0, steps_taken / cap - elapsed)


def speed_text(cap: float) -> str:
    """How a cap is shown: "max" for none, "5 steps/s" otherwise."""
    return "max" if cap <= 0 else f"{cap:g} steps/s"
