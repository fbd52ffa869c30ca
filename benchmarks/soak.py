"""Soak: a lecture's worth of churning students on one server, to see whether a move costs more
the more sessions the server has served (issue 39).

N students (`--students`, default 30) for D minutes (`--minutes`, default 60), over Streamlit's
websocket protocol (benchmarks.load_client, no browsers). Each student opens the text or the
pretrained page (in turn), makes `--moves` moves of the page's main widgets (benchmarks.load's
MAIN_WIDGETS) with a think time around `--think` s, half of them after switching to the other
page in the same session (`--one-page`: no switch), closes, and a new student takes the place:
with the defaults about 33 new sessions a minute and 1,500 moves per 5 minutes, as phones sleep,
tabs reload and latecomers join. Every 30 s the server's CPU, RSS, open files and threads are
sampled. Per `--window` minutes (default 5) it prints the moves, p50 / p95 / max of a move
(send → script_finished), server CPU per move (ms), RSS, open files and threads, then

    soak: <D> min, <N> students, cpu/move <a>→<b> ms, p95 <x>→<y> s, RSS <r1>→<r2> MB, errors <e>

comparing the second window with the last (the first holds model loads and warm caches).
Goals: the last window's CPU per move and p95 within 20 % of the second's, RSS growth ≤ 10 %
after minute 5, no errors.

    python -m benchmarks.soak                          # starts a server: 30 students, 60 min
    python -m benchmarks.soak --minutes 10 --window 2  # a quick look
    python -m benchmarks.soak --url http://127.0.0.1:8501 --pid <server pid>
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.load import LevelStats, open_tab, percentile, pick, served
from benchmarks.load_procs import ProcessTree

PAGES = ["text", "pretrained"]
SAMPLE_S = 30


@dataclass
class Window:
    """What happened in one window of the run."""

    times: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    sessions: int = 0
    cpu_s: float = 0.0
    rss_mb: float = 0.0
    files: int = 0
    threads: int = 0

    def cpu_ms_per_move(self) -> float:
        return 1000 * self.cpu_s / len(self.times) if self.times else float("nan")


@dataclass
class Soak:
    windows: list[Window]
    window_s: float
    start: float = field(default_factory=time.monotonic)

    def now(self) -> Window:
        index = int((time.monotonic() - self.start) // self.window_s)
        return self.windows[min(index, len(self.windows) - 1)]


def proc_counts(tree: ProcessTree) -> tuple[int, int]:
    """Open files and threads of the server process(es) (the roots)."""
    files = threads = 0
    for pid in tree.roots:
        try:
            files += len(list(Path(f"/proc/{pid}/fd").iterdir()))
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        threads += int(
            next(ln.split()[1] for ln in status.splitlines() if ln.startswith("Threads"))
        )
    return files, threads


async def sample(tree: ProcessTree, soak: Soak, until: float, minutes: float) -> None:
    """Every SAMPLE_S: the server's CPU into the window it was used in, RSS, files, threads;
    each window's row once it has ended."""
    last, printed = tree.cpu_seconds(roots_only=True), 0
    print(HEADER, flush=True)
    while time.monotonic() < until:
        await asyncio.sleep(min(SAMPLE_S, max(until - time.monotonic(), 0.1)))
        elapsed = time.monotonic() - soak.start
        index = min(int((elapsed - 1) // soak.window_s), len(soak.windows) - 1)
        window = soak.windows[index]
        used = tree.cpu_seconds(roots_only=True)
        window.cpu_s += used - last
        last = used
        window.rss_mb = tree.rss_mb()
        window.files, window.threads = proc_counts(tree)
        for done in range(printed, min(int(elapsed // soak.window_s), len(soak.windows))):
            print(row(done, soak.windows[done], minutes), flush=True)
            printed = done + 1
    for done in range(printed, len(soak.windows)):
        print(row(done, soak.windows[done], minutes), flush=True)


async def student(
    url: str,
    pages: list[str],
    moves: int,
    think: float,
    rng: random.Random,
    soak: Soak,
    until: float,
) -> None:
    """One session: open the first of `pages`, make `moves` moves spread over the pages (a page
    switch within the session, as the sidebar makes it, between them), close."""
    stats = LevelStats(1)
    tab = await open_tab(url, pages[0], stats)
    window = soak.now()
    window.sessions += 1
    window.errors.update(stats.errors)
    if tab is None:
        return
    try:
        for index, page in enumerate(pages):
            if index and not await switch(tab, page, soak):
                break
            share = moves // len(pages) + (index < moves % len(pages))
            if not await make_moves(tab, page, share, think, rng, soak, until):
                break
    finally:
        await tab.close()


async def switch(tab, page: str, soak: Soak) -> bool:
    """Go to `page` in the same session (the navigation's page switch); False on an error."""
    tab.page, tab.page_hash = page, ""
    result = await tab.run()
    if not result.ok:
        soak.now().errors[f"switch to {page}: {result.status}"] += 1
    return result.ok


async def make_moves(
    tab, page: str, moves: int, think: float, rng: random.Random, soak: Soak, until: float
) -> bool:
    """`moves` moves of the page's main widgets, each after a think time; False once the run is
    over, the tab closed or a move failed to find a widget."""
    for _ in range(moves):
        await asyncio.sleep(rng.expovariate(1 / think))
        if time.monotonic() >= until or tab.closed:
            return False
        widget = pick(tab, rng)
        if widget is None:
            soak.now().errors[f"no widget to move on {page}"] += 1
            return False
        result = await tab.change(widget, rng)
        window = soak.now()
        if result.ok:
            window.times.append(result.seconds)
        else:
            window.errors[result.exceptions[0][:80] if result.exceptions else result.status] += 1
    return True


async def seat(url: str, index: int, args: argparse.Namespace, soak: Soak, until: float) -> None:
    """One seat in the hall: a student after another until the end, each visiting the pages
    (starting with a different one each time), or one page each with --one-page."""
    rng = random.Random(index)
    await asyncio.sleep(rng.uniform(0, args.think * 2))  # latecomers: no thundering herd
    count = 0
    while time.monotonic() < until:
        first = (index + count) % len(PAGES)
        pages = [*PAGES[first:], *PAGES[:first]]
        await student(
            url, pages[:1] if args.one_page else pages, args.moves, args.think, rng, soak, until
        )
        count += 1


HEADER = (
    f"{'minutes':>9} {'sessions':>8} {'moves':>6} {'p50 s':>6} {'p95 s':>6} {'max s':>6} "
    f"{'cpu/move ms':>11} {'RSS MB':>7} {'files':>5} {'threads':>7} {'errors':>6}"
)


def row(index: int, window: Window, minutes: float) -> str:
    times = window.times
    top = max(times) if times else float("nan")
    span = f"{index * minutes:g}–{(index + 1) * minutes:g}"
    return (
        f"{span:>9} {window.sessions:>8} {len(times):>6} {percentile(times, 50):>6.2f} "
        f"{percentile(times, 95):>6.2f} {top:>6.2f} {window.cpu_ms_per_move():>11.0f} "
        f"{window.rss_mb:>7.0f} {window.files:>5} {window.threads:>7} "
        f"{sum(window.errors.values()):>6}"
    )


def summary(args: argparse.Namespace, windows: list[Window]) -> str:
    second, last = windows[min(1, len(windows) - 1)], windows[-1]
    errors = sum(sum(w.errors.values()) for w in windows)
    return (
        f"soak: {args.minutes:g} min, {args.students} students, cpu/move "
        f"{second.cpu_ms_per_move():.0f}→{last.cpu_ms_per_move():.0f} ms, p95 "
        f"{percentile(second.times, 95):.2f}→{percentile(last.times, 95):.2f} s, RSS "
        f"{second.rss_mb:.0f}→{last.rss_mb:.0f} MB, errors {errors}"
    )


async def soak_run(url: str, tree: ProcessTree, args: argparse.Namespace) -> None:
    count = max(1, round(args.minutes / args.window))
    soak = Soak([Window() for _ in range(count)], args.window * 60)
    until = soak.start + args.minutes * 60
    sampler = asyncio.create_task(sample(tree, soak, until, args.window))
    await asyncio.gather(*(seat(url, i, args, soak, until) for i in range(args.students)))
    await sampler
    for index, window in enumerate(soak.windows):
        if window.errors:
            print(f"  errors in window {index + 1}: {dict(window.errors)}")
    print(summary(args, soak.windows), flush=True)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--window", type=float, default=5.0, help="minutes per window")
    parser.add_argument("--moves", type=int, default=9, help="moves per session")
    parser.add_argument("--think", type=float, default=5.0, help="mean think time, seconds")
    parser.add_argument(
        "--one-page", action="store_true", help="each session stays on one page (no switch)"
    )
    parser.add_argument("--url", help="a running server (else one is started)")
    parser.add_argument("--pid", type=int, nargs="*", default=[], help="the server's process")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    with served(args):
        asyncio.run(soak_run(args.url, ProcessTree(args.pid), args))


if __name__ == "__main__":
    main()
