"""Load generator: N simulated students on a real server, over Streamlit's websocket protocol.

No browsers (Chromium alone saturates these 2-core machines): each student is a
`load_client.StreamlitSession`, so one asyncio process drives 60 of them. Per level of N students:
every student opens a page of the mix (`--pages`, round robin), then, for `--duration` seconds,
waits a think time (exponential around `--think` s) and moves one of the page's main widgets
(`MAIN_WIDGETS`) to another valid value, timing send → script_finished (one interaction).
Errors: an exception drawn by the app, a closed websocket, a timeout. Prints p50 / p95 / max, the
count, errors, the server's CPU (% of one core, and CPU seconds per interaction: the server's
CPU time over the interaction phase / interactions) and RSS, summed over the server process(es)
and their children.

    python -m benchmarks.load                                  # starts a server, 1 10 30 60
    python -m benchmarks.load --students 10 30 --duration 60 --think 5
    python -m benchmarks.load --url http://127.0.0.1:8501 --pid <start.sh's pid>   # via a proxy
    python -m benchmarks.load --training 6                     # concurrent training, see
                                                               # benchmarks.load_training
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import websockets

from benchmarks.load_client import RunResult, StreamlitSession, Widget
from benchmarks.load_procs import ProcessTree

DEFAULT_PAGES = ["soft-select", "self-attention", "text", "pretrained", "kernel-smoother"]
# the widgets a student moves on each page (widget keys); a page not listed: any slider,
# selectbox or radio of its main area
MAIN_WIDGETS = {
    "soft-select": ("ss_q1", "ss_q2", "ss_temp", "ss_score"),
    "self-attention": ("sa_reveal", "sa_m", "sa_d", "sa_e", "sa_d2"),
    "text": ("ta_head", "ta_query", "ta_temp", "ta_pos", "ta_score", "ta_heads"),
    "pretrained": ("pe_layer", "pe_head", "pe_query"),
    "kernel-smoother": ("ks_qx", "ks_width", "ks_noise", "ks_kernel"),
}


@dataclass
class LevelStats:
    students: int
    times: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    opens: list[float] = field(default_factory=list)
    replicas: Counter = field(default_factory=Counter)  # affinity cookie value: interactions
    cpu_s: float = 0.0
    wall_s: float = 0.0
    rss_mb: float = 0.0

    def record(self, result: RunResult, replica: str = "") -> None:
        if result.ok:
            self.times.append(result.seconds)
            self.replicas[replica] += 1
        else:
            self.errors[result.exceptions[0][:80] if result.exceptions else result.status] += 1


def pick(tab: StreamlitSession, rng: random.Random) -> Widget | None:
    """One of the page's main widgets (MAIN_WIDGETS) that can take another value."""
    keys = MAIN_WIDGETS.get(tab.page)
    if keys is None:
        return tab.pick_widget(rng)
    widgets = [w for w in tab.main_widgets() if w.id.rsplit("-", 1)[-1] in keys]
    return rng.choice(widgets) if widgets else None


def replica_of(tab: StreamlitSession, cookie: str) -> str:
    """The value of the proxy's affinity cookie (which replica serves this tab), or ''."""
    return next((c.value for c in tab.cookies if c.name == cookie), "")


async def open_tab(
    url: str, page: str, stats: LevelStats, tag: str = ""
) -> StreamlitSession | None:
    """Connect and run the page once (the open is timed apart from interactions)."""
    tab = StreamlitSession(url, page, tag=tag)
    try:
        await tab.connect()
        result = await tab.run()
    except (OSError, TimeoutError, ValueError, websockets.WebSocketException) as exc:
        stats.errors[f"connect: {type(exc).__name__}"] += 1
        await tab.close()
        return None
    if not result.ok:  # counted as an error; this student does not go on
        stats.record(result)
        await tab.close()
        return None
    stats.opens.append(result.seconds)
    return tab


async def interact(
    tab: StreamlitSession, until: float, think: float, rng: random.Random, stats: LevelStats
) -> None:
    """Think, move a widget, time the rerun; until `until` (an interaction under way ends)."""
    cookie = replica_of(tab, "attnviz_replica")
    while True:
        await asyncio.sleep(rng.expovariate(1 / think) if think > 0 else 0)
        if time.monotonic() >= until or tab.closed:
            break
        widget = pick(tab, rng)
        if widget is None:
            stats.errors[f"no widget to move on {tab.page}"] += 1
            break
        try:
            stats.record(await tab.change(widget, rng), cookie)
        except websockets.ConnectionClosed:
            break
    if tab.closed and time.monotonic() < until:
        stats.errors[f"websocket closed: {tab.close_reason}"] += 1


async def run_level(
    url: str,
    students: int,
    pages: list[str],
    duration: float,
    think: float,
    tree: ProcessTree | None = None,
    seed: int = 0,
) -> LevelStats:
    """Open `students` tabs (pages round robin), then interact for `duration` seconds."""
    stats = LevelStats(students)
    tabs = await asyncio.gather(
        *(open_tab(url, pages[i % len(pages)], stats, f"s{i}") for i in range(students))
    )
    live = [tab for tab in tabs if tab is not None]
    cpu0, start = (tree.cpu_seconds() if tree else 0.0), time.monotonic()
    until = start + duration
    rss = asyncio.create_task(_sample_rss(tree, stats, until)) if tree else None
    await asyncio.gather(
        *(
            interact(t, until, think, random.Random(seed * 1000 + i), stats)
            for i, t in enumerate(live)
        )
    )
    stats.wall_s = time.monotonic() - start if live else 0.0  # no interaction phase: no CPU %
    stats.cpu_s = (tree.cpu_seconds() - cpu0) if tree else 0.0
    if rss is not None:
        await rss
    await asyncio.gather(*(tab.close() for tab in live))
    return stats


async def _sample_rss(tree: ProcessTree, stats: LevelStats, until: float) -> None:
    while time.monotonic() < until:
        stats.rss_mb = max(stats.rss_mb, tree.rss_mb())
        await asyncio.sleep(1)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


HEADER = (
    f"{'students':>8} {'interactions':>12} {'p50 s':>7} {'p95 s':>7} {'max s':>7} "
    f"{'errors':>6} {'CPU %':>6} {'CPU s/int':>9} {'RSS MB':>7} {'open p50 s':>10}"
)


def row(stats: LevelStats) -> str:
    n = len(stats.times)
    cpu_pct = 100 * stats.cpu_s / stats.wall_s if stats.wall_s else float("nan")
    per = stats.cpu_s / n if n else float("nan")
    top = max(stats.times) if stats.times else float("nan")
    return (
        f"{stats.students:>8} {n:>12} {percentile(stats.times, 50):>7.2f} "
        f"{percentile(stats.times, 95):>7.2f} {top:>7.2f} {sum(stats.errors.values()):>6} "
        f"{cpu_pct:>6.0f} {per:>9.3f} {stats.rss_mb:>7.0f} {percentile(stats.opens, 50):>10.2f}"
    )


def details(stats: LevelStats) -> str:
    """Errors by kind and interactions per replica (behind the proxy), when there are any."""
    parts = [f"  errors: {dict(stats.errors)}"] if stats.errors else []
    if len(stats.replicas) > 1 or "" not in stats.replicas:
        parts.append(f"  interactions per replica: {dict(sorted(stats.replicas.items()))}")
    return "\n".join(parts)


async def warm_up(url: str, pages: list[str], rounds: int = 2) -> None:
    """Open every page `rounds` times in turn (model loads, caches; behind a round-robin proxy,
    on `rounds` replicas) so that level 1 times warm reruns."""
    stats = LevelStats(1)
    for page in pages:
        for _ in range(rounds):
            tab = await open_tab(url, page, stats)
            if tab is not None:
                await tab.close()
    print(f"warm-up: pages opened in {', '.join(f'{s:.1f}' for s in stats.opens)} s", flush=True)


async def run_levels(url: str, args: argparse.Namespace, tree: ProcessTree | None) -> None:
    await warm_up(url, args.pages, args.warm)
    print(
        f"{args.duration:.0f} s per level, think time exponential with mean {args.think:.1f} s, "
        f"pages: {' '.join(args.pages)}"
    )
    print(HEADER, flush=True)
    for level, students in enumerate(args.students):
        stats = await run_level(
            url, students, args.pages, args.duration, args.think, tree, seed=level
        )
        print(row(stats), flush=True)
        if details(stats):
            print(details(stats), flush=True)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[1, 10, 30, 60])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per level")
    parser.add_argument("--think", type=float, default=5.0, help="mean think time, seconds")
    parser.add_argument("--pages", nargs="+", default=DEFAULT_PAGES, help="url paths")
    parser.add_argument("--url", help="a running server or proxy (else one is started)")
    parser.add_argument(
        "--pid", type=int, nargs="*", default=[], help="server or start.sh process(es) to measure"
    )
    parser.add_argument(
        "--warm", type=int, default=2, help="warm-up opens of each page (one per replica)"
    )
    parser.add_argument("--training", type=int, default=0, help="concurrent training sessions")
    return parser.parse_args(argv)


@contextmanager
def served(args: argparse.Namespace) -> Iterator[None]:
    """A server for the run: the one at `args.url`, else one started here (and stopped after);
    `args.url` and `args.pid` name it."""
    server = None
    if args.url is None:
        from tests.support.server import start

        server = start()
        args.url, args.pid = server.url, [server.pid]
        print(f"started {server.url} (pid {server.pid})", flush=True)
    try:
        yield
    finally:
        if server is not None:
            from tests.support.server import stop

            stop(server)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    with served(args):
        tree = ProcessTree(args.pid) if args.pid else None
        if args.training:
            from benchmarks.load_training import run_training

            asyncio.run(run_training(args.url, args, tree))
        else:
            asyncio.run(run_levels(args.url, args, tree))


if __name__ == "__main__":
    main()
