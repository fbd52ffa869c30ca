"""Concurrent training under load (`python -m benchmarks.load --training 6`).

`--training K` sessions open the kernel smoother page (the quickest training page to start: no
torch model to build; settings from TRAIN_QUERY make a run last minutes) and press Start at once.
The job pool runs one worker per core (attnviz.training.jobs), so the rest wait: their status
line says "waiting for a free worker (position N in the queue)". The tabs follow their live
fragment (the `auto_rerun` messages, as a browser does), so the queue advances. Meanwhile
`--students` (the first level) students interact with the non-training pages for `--duration`
seconds: their p95 is compared with the goal. Then the K websockets close, and the report says
how long the server takes to release the sessions and stop every worker process.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time

from benchmarks.load import HEADER, details, row, run_level, warm_up
from benchmarks.load_client import StreamlitSession
from benchmarks.load_procs import ProcessTree, cmdline

TRAIN_PAGE = "kernel-smoother"
TRAIN_QUERY = "ks_steps=20000&ks_n=200&ks_data=rings_2d"  # minutes of training (see the browser
# test tests/browser/test_session_end.py)
STATUS = re.compile(r"\*\*(\w+)\*\* — step (\d+) of (\d+)(.*)")
QUEUED = re.compile(r"waiting for a free worker \(position (\d+) in the queue\)")


def workers(tree: ProcessTree) -> set[int]:
    """Training workers: processes forked by a multiprocessing fork server below the tree."""
    found = tree.descendants()
    return {
        pid
        for pid, parent in found.items()
        if parent in found and "forkserver" in cmdline(parent) and "forkserver" in cmdline(pid)
    }


def status(tab: StreamlitSession) -> str:
    """The last training status line the tab received ('' before any)."""
    return next((t for t in reversed(tab.texts) if STATUS.search(t)), "")


async def start_trainings(url: str, count: int) -> list[StreamlitSession]:
    """Open `count` training tabs, then press Start in all of them at once."""
    tabs = [StreamlitSession(url, TRAIN_PAGE, TRAIN_QUERY, timeout=120) for _ in range(count)]
    await asyncio.gather(*(tab.connect() for tab in tabs))
    opened = await asyncio.gather(*(tab.run() for tab in tabs))
    print(f"{count} training tabs opened in {max(r.seconds for r in opened):.1f} s", flush=True)
    starts = [tab.buttons("Start") for tab in tabs]
    if not all(starts):
        raise RuntimeError(f"no Start button on {TRAIN_PAGE}")
    began = time.monotonic()
    clicked = await asyncio.gather(*(tab.click(b[0]) for tab, b in zip(tabs, starts, strict=True)))
    bad = [r for r in clicked if not r.ok]
    print(
        f"Start pressed in {count} tabs at once: reruns done in {time.monotonic() - began:.1f} s"
        f"{f', {len(bad)} failed: {bad}' if bad else ''}",
        flush=True,
    )
    return tabs


def report_statuses(tabs: list[StreamlitSession], tree: ProcessTree | None, when: str) -> None:
    lines = [status(tab) for tab in tabs]
    running = sum(1 for s in lines if s.startswith("▶") or "**running**" in s)
    queued = sorted(int(m.group(1)) for s in lines if (m := QUEUED.search(s)))
    procs = f", worker processes: {len(workers(tree))}" if tree else ""
    print(f"{when}: running {running}, queued {len(queued)} at positions {queued}{procs}")
    for i, line in enumerate(lines):
        print(f"  tab {i + 1}: {line.strip()}")


async def wait_workers_gone(
    tree: ProcessTree, before: set[int], closed: float, limit: float = 120
) -> None:
    left = workers(tree) - before
    while left and time.monotonic() < closed + limit:
        await asyncio.sleep(0.5)
        left = workers(tree) - before
    took = time.monotonic() - closed
    if left:
        print(f"after {took:.0f} s, {len(left)} worker processes still run: {sorted(left)}")
    else:
        print(f"every training worker exited {took:.1f} s after the websockets closed")


async def run_training(url: str, args: argparse.Namespace, tree: ProcessTree | None) -> None:
    pages = [p for p in args.pages if p != TRAIN_PAGE] or args.pages
    await warm_up(url, pages, args.warm)  # cold model loads are not what this measures
    before = workers(tree) if tree else set()
    tabs = await start_trainings(url, args.training)
    await asyncio.sleep(5)  # the live fragments poll the pool twice a second
    report_statuses(tabs, tree, "5 s after Start")
    students = args.students[0]
    print(
        f"{students} students on {' '.join(pages)} while the trainings run "
        f"({args.duration:.0f} s, think {args.think:.1f} s):"
    )
    print(HEADER)
    own, began = (tree.cpu_seconds(roots_only=True) if tree else 0.0), time.monotonic()
    stats = await run_level(url, students, pages, args.duration, args.think, tree)
    print(row(stats))
    if tree:
        own = 100 * (tree.cpu_seconds(roots_only=True) - own) / (time.monotonic() - began)
        print(
            f"  the server process itself (reruns, live panels; no workers): {own:.0f} % of a core"
        )
    if details(stats):
        print(details(stats))
    report_statuses(tabs, tree, "after the students' run")
    closed = time.monotonic()
    await asyncio.gather(*(tab.close() for tab in tabs))
    if tree:
        await wait_workers_gone(tree, before, closed)
