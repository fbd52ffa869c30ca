"""Where the suite's time goes, printed at its end (issue 52: the suite within 10 minutes).

A pytest plugin (registered by tests/conftest.py). It adds up each test's setup, call and
teardown time by area (browser, deploy, the app's AppTests, the shared trainings, the engine) and
by worker, and prints the totals with each worker's busy time against the wall time, so that a
slow run says which part grew:

    where the time went (test time, s): wall 612
      browser      401  (182 tests)
      ...
      busy per worker: gw0 598, gw1 575

Under xdist the controller sees every worker's reports (`report.node` names the worker). The
machine's CPU use over the run (from /proc/stat: both cores busy is 100 %) is printed beside it,
so that idle cores show, and how many runs the session trained because tests/trained/ kept no
current run for them (tests/support/trained_cache.py); with ATTNVIZ_TIMELINE=<file> each test
phase's worker, start and end are written there (tab-separated) to find what ran while the cores
idled.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest

TESTS = Path(__file__).parents[1]


def area(nodeid: str, groups: dict[str, str]) -> str:
    """The part of the suite a test belongs to: its xdist group's name, else its folder."""
    path = nodeid.split("::", 1)[0]
    if (group := groups.get(Path(path).name)) is not None:
        return f"trained: {group}"
    parts = Path(path).parts
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else "other"


class WhereTimeGoes:
    """Collects the reports; prints the totals in the terminal summary."""

    def __init__(self, groups: dict[str, str]) -> None:
        self.groups = groups
        self.start = time.monotonic()
        self.by_area: Counter[str] = Counter()
        self.tests: dict[str, set[str]] = {}
        self.by_worker: Counter[str] = Counter()
        self.cpu_start = busy_and_total()
        self.timeline: list[str] = []
        self.shared: Path | None = None  # the workers' common folder (tests/support/trained.py)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        factory = getattr(session.config, "_tmp_path_factory", None)
        self.shared = factory.getbasetemp() if factory else None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        where = area(report.nodeid, self.groups)
        self.by_area[where] += report.duration
        self.tests.setdefault(where, set()).add(report.nodeid)
        node = getattr(report, "node", None)
        worker = getattr(getattr(node, "gateway", None), "id", "main")
        self.by_worker[worker] += report.duration
        self.timeline.append(f"{worker}\t{report.start:.2f}\t{report.stop:.2f}\t{report.nodeid}")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        wall = time.monotonic() - self.start
        write = terminalreporter.write_line
        write(f"where the time went (test time, s): wall {wall:.0f}")
        for where, seconds in self.by_area.most_common():
            write(f"  {where:<28} {seconds:6.0f}  ({len(self.tests[where])} tests)")
        busy = ", ".join(f"{w} {s:.0f}" for w, s in sorted(self.by_worker.items()))
        write(f"  busy per worker: {busy}")
        (busy_then, total_then), (busy_now, total_now) = self.cpu_start, busy_and_total()
        if total_now > total_then:
            share = (busy_now - busy_then) / (total_now - total_then)
            write(f"  the machine's CPU busy: {share:.0%} of {os.cpu_count()} cores over the run")
        trained = sorted(self.shared.glob("trained-*.pickle")) if self.shared else []
        write(f"  runs trained here (tests/trained/ kept none current for them): {len(trained)}")
        notes = self.shared / "drawn-live.txt" if self.shared else None
        live = sum(map(int, notes.read_text().split())) if notes and notes.exists() else 0
        write(f"  figures drawn outside the app here (tests/drawn/ kept none for them): {live}")
        if path := os.environ.get("ATTNVIZ_TIMELINE"):
            Path(path).write_text("\n".join(self.timeline) + "\n")


def busy_and_total() -> tuple[int, int]:
    """The machine's CPU time so far, busy and in all, in clock ticks (Linux's /proc/stat);
    (0, 0) elsewhere."""
    try:
        ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    idle = ticks[3] + ticks[4]  # idle and waiting for I/O
    return sum(ticks) - idle, sum(ticks)
