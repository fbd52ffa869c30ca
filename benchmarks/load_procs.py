"""CPU time and memory of a process tree, read from /proc (psutil is not a dependency).

tree = ProcessTree([server_pid])
before = tree.cpu_seconds()     # user + system of every live process in the tree, plus what
...                             # its reaped children used (so exited workers still count)
used = tree.cpu_seconds() - before
tree.rss_mb()                   # resident memory of the tree now
tree.descendants()              # {pid: parent pid} below the roots
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.server import descendants

TICKS = os.sysconf("SC_CLK_TCK")
PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name, or None if it has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # fields 3.. (state is index 0)


class ProcessTree:
    """The processes `roots` and everything below them (see the module docstring)."""

    def __init__(self, roots: list[int]) -> None:
        self.roots = list(roots)

    def descendants(self) -> dict[int, int]:
        """{process: its parent} for everything below the roots."""
        found: dict[int, int] = {}
        for root in self.roots:
            found.update(descendants(root))
        return found

    def pids(self) -> list[int]:
        return self.roots + list(self.descendants())

    def cpu_seconds(self, roots_only: bool = False) -> float:
        """utime + stime + cutime + cstime (fields 14-17) summed over the tree; `roots_only`:
        utime + stime of the roots themselves (e.g. the server without its training workers)."""
        total = 0
        for pid in self.roots if roots_only else self.pids():
            fields = _stat(pid)
            if fields is not None:
                total += sum(int(f) for f in fields[11 : 13 if roots_only else 15])
        return total / TICKS

    def rss_mb(self) -> float:
        """Resident set size (field 24) summed over the tree."""
        pages = 0
        for pid in self.pids():
            fields = _stat(pid)
            if fields is not None:
                pages += int(fields[21])
        return pages * PAGE_MB


def cmdline(pid: int) -> str:
    """The process's command line ('' if it has gone)."""
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""
