"""Where the suite's time goes, printed at its end (issue 52: the suite within 10 minutes).

A pytest plugin (registered by tests/conftest.py). It adds up each test's setup, call and
teardown time by area (browser, deploy, the app's AppTests, the shared trainings, the engine) and
by worker, and prints the totals with each worker's busy time against the wall time, so that a
slow run says which part grew:

    where the time went (test time, s): wall 612
      browser      401  (182 tests)
      ...
      busy per worker: gw0 598, gw1 575

Under xdist the controller sees every worker's reports (`report.node` names the worker).
"""

from __future__ import annotations

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

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        where = area(report.nodeid, self.groups)
        self.by_area[where] += report.duration
        self.tests.setdefault(where, set()).add(report.nodeid)
        node = getattr(report, "node", None)
        worker = getattr(getattr(node, "gateway", None), "id", "main")
        self.by_worker[worker] += report.duration

    def pytest_terminal_summary(self, terminalreporter) -> None:
        wall = time.monotonic() - self.start
        write = terminalreporter.write_line
        write(f"where the time went (test time, s): wall {wall:.0f}")
        for where, seconds in self.by_area.most_common():
            write(f"  {where:<28} {seconds:6.0f}  ({len(self.tests[where])} tests)")
        busy = ", ".join(f"{w} {s:.0f}" for w, s in sorted(self.by_worker.items()))
        write(f"  busy per worker: {busy}")
