"""The live classroom under load (issue 27): N simulated students join a room and vote.

Everyone is a `load_client.StreamlitSession` (Streamlit's websocket protocol, no browser):

1. the room is opened in the store (what the presenter's "Open a room" does) and the
   presenter's tab opens its presenter link on a lesson step with a question (lesson 1, step
   3) and presses "Open vote"; its live count then reruns on its timer, as on the projector;
2. the students open the students' link (`/?room=CODE`), each with its own browser id (what
   static/voter_id.js keeps in localStorage, sent as that component's state), land on the
   step's page (a second run with the id, as the component's value reruns the page in a
   browser) and wait for the options;
3. each taps one option at a random moment within `--window` seconds, timed from the tap to
   the "Your vote" line (the acknowledgement);
4. with `--kill`, the replica that does not serve the projector is killed (SIGKILL) once half
   of the votes are acknowledged: its students reconnect through the proxy with the same
   cookies (HAProxy redispatches them to the live replica) and the same browser id; those not
   yet acknowledged tap again, or see the vote the store kept before the kill.

Prints the vote p50/p95/max, the acknowledgements, the store's counts against the
acknowledged votes (every acknowledged vote counted exactly once), and how long after the last
acknowledgement the projector showed the right count.

    python -m benchmarks.load_classroom                      # 200 students, 2 replicas, PostgreSQL
    python -m benchmarks.load_classroom --students 60 --kill
    python -m benchmarks.load_classroom --sqlite             # one SQLite file (WAL) for both
    python -m benchmarks.load_classroom --typed              # each types a word (lesson 9)
    python -m benchmarks.load_classroom --typed number       # each types a number (lesson 8)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass

import websockets

from benchmarks.load import percentile
from benchmarks.load_client import StreamlitSession
from benchmarks.load_deploy import deployment, kill_replica
from benchmarks.load_student import (
    ANSWERS,
    QUESTION,
    TYPED,
    Student,
    Tally,
    join,
    vote,
    with_browser_id,
)

LESSON, STEP, PAGE = "01_select_to_self_attention", 3, "soft-select"  # three options to tap


@dataclass
class Projector:
    tab: StreamlitSession

    def count(self) -> int | None:
        """The latest "N votes" of the live count."""
        for text in reversed(self.tab.texts):
            if "votes**" in text or "vote**" in text:
                return int(text.split("**")[3].split()[0])
        return None


async def open_projector(url: str, code: str, key: str, choices: list[str]) -> Projector:
    """The presenter's tab on the step, in the room (its presenter link), with round 1 open."""
    query = f"lesson={LESSON}&step={STEP}&room={code}&room_key={key}"
    tab = StreamlitSession(url, PAGE, query=query, tag="projector", timeout=120)
    await tab.connect()
    if not (await tab.run()).ok:
        raise RuntimeError(f"the presenter's page failed: {tab.exceptions[:1]}")
    tab.query = f"lesson={LESSON}&step={STEP}"  # the page drops the key from the address
    button = next(iter(tab.buttons("Open vote")), None)
    if button is None:
        raise RuntimeError("the presenter's bar has no Open vote")
    if not (await tab.click(button)).ok:
        raise RuntimeError(f"Open vote failed: {tab.exceptions[:1]}")
    return Projector(tab)


async def students_join(
    url: str, code: str, n: int, choices: list[str], tally: Tally, rng: random.Random
) -> list[Student]:
    """N students open the students' link, 20 at a time (a hall scanning the QR code)."""
    gate = asyncio.Semaphore(20)
    students = []
    for i in range(n):
        tab = StreamlitSession(url, "", query=f"room={code}", tag=f"s{i}", timeout=120)
        student = Student(f"s{i}", f"{rng.getrandbits(128):032x}", tab, rng.choice(choices))
        with_browser_id(tab, student.voter)
        students.append(student)

    async def one(student: Student) -> None:
        async with gate:
            try:
                await join(student, choices)
            except (OSError, RuntimeError, TimeoutError, websockets.WebSocketException) as err:
                tally.errors[f"join: {type(err).__name__}: {str(err)[:60]}"] += 1

    await asyncio.gather(*(one(s) for s in students))
    return students


async def watch_count(
    projector: Projector, expected: int, since: float, limit: float = 30
) -> float | None:
    """Seconds from `since` until the projector shows `expected` votes (None: never)."""
    while time.monotonic() < since + limit:
        if projector.count() == expected:
            return time.monotonic() - since
        await asyncio.sleep(0.05)
    return None


async def killer(kill, students: list[Student], projector_replica: str, tally: Tally) -> str:
    """Kill the replica not serving the projector (`kill(name)`) once half of the votes are
    acknowledged."""
    victim = "r2" if projector_replica == "r1" else "r1"
    while sum(tally.acked.values()) < len(students) // 2:
        await asyncio.sleep(0.05)
    kill(victim)
    return victim


@dataclass
class Outcome:
    students: int
    ready: int  # joined and saw the options
    tally: Tally
    counts: dict[str, int]  # the store's, after the votes
    voted_in: float  # s from the window's start to the last acknowledgement
    lag: float | None  # s from the last acknowledgement to the projector's right count
    victim: str | None
    as_browsers: int  # students whose browser id holds their option in the store

    @property
    def acked(self) -> int:
        return sum(self.tally.acked.values())

    @property
    def exactly_once(self) -> bool:
        return dict(self.counts) == {k: v for k, v in self.tally.acked.items() if v}


async def classroom(
    url: str, database_url: str, students: int, window: float, seed: int = 0, kill=None
) -> Outcome:
    """A room on the deployment at `url` (its replicas on `database_url`): the projector,
    `students` students joining and voting within `window` s; `kill(replica)`, if given, kills
    the replica not serving the projector halfway through."""
    from attnviz.classroom import Store, StoreConfig
    from attnviz.lessons.loader import bundled_lessons

    question = bundled_lessons()[LESSON].steps[STEP - 1].question
    choices = list(ANSWERS[question.kind] if question.typed else question.options)
    rng, tally = random.Random(seed), Tally()
    store = Store(StoreConfig(url=database_url))
    try:
        code, key = store.open_room(LESSON)
        projector = await open_projector(url, code, key, choices)
        cookies = {c.name: c.value for c in projector.tab.cookies}
        joined_at = time.monotonic()
        joined = await students_join(url, code, students, choices, tally, rng)
        ready = [s for s in joined if s.replica]
        print(
            f"{len(ready)} of {students} students joined in {time.monotonic() - joined_at:.1f} s "
            f"(per replica: {dict(Counter(s.replica for s in ready))})"
        )
        start = time.monotonic() + 1
        watcher = None
        if kill is not None:
            watcher = asyncio.create_task(killer(kill, ready, cookies["attnviz_replica"], tally))
        await asyncio.gather(
            *(vote(s, url, code, choices, tally, start + rng.uniform(0, window)) for s in ready)
        )
        lag = await watch_count(projector, sum(tally.acked.values()), tally.last_ack)
        victim = watcher.result() if watcher is not None and watcher.done() else None
        outcome = Outcome(
            students,
            len(ready),
            tally,
            store.counts(code, STEP, 1),
            tally.last_ack - start,
            lag,
            victim,
            sum(store.my_vote(code, s.voter) == s.option for s in ready),
        )
        for s in [*joined, projector]:
            await s.tab.close()
        return outcome
    finally:
        store.dispose()


async def run(args: argparse.Namespace) -> int:
    global LESSON, STEP, PAGE
    if args.typed:
        LESSON, STEP, PAGE = TYPED[args.typed]
        QUESTION["typed"] = args.typed
    with deployment(replicas=2, sqlite=args.sqlite) as deployed:
        kill = (lambda name: kill_replica(deployed, name)) if args.kill else None
        outcome = await classroom(
            deployed.url, deployed.database_url, args.students, args.window, args.seed, kill
        )
    return report(args, outcome)


def report(args: argparse.Namespace, outcome: Outcome) -> int:
    tally, times = outcome.tally, outcome.tally.times
    print(
        f"students {args.students}{f' typing a {args.typed}' if args.typed else ''}, window "
        f"{args.window:.0f} s, database "
        f"{'SQLite' if args.sqlite else 'PostgreSQL'}, killed {outcome.victim or 'none'}"
    )
    print(
        f"acknowledged {outcome.acked} of {outcome.ready} in {outcome.voted_in:.1f} s; "
        f"reconnects {tally.reconnects}; errors {dict(tally.errors) or 'none'}"
    )
    if times:
        print(
            f"vote (tap → acknowledgement): p50 {percentile(times, 50):.2f} s, p95 "
            f"{percentile(times, 95):.2f} s, max {max(times):.2f} s"
        )
    print(
        f"store counts {dict(sorted(outcome.counts.items()))} vs acknowledged "
        f"{dict(sorted(tally.acked.items()))}: "
        f"{'exactly once' if outcome.exactly_once else 'MISMATCH'}; "
        f"{outcome.as_browsers} of {outcome.ready} under their browser's id"
    )
    print(
        f"projector showed {outcome.acked} votes {outcome.lag:.2f} s after the last acknowledgement"
        if outcome.lag is not None
        else "projector never showed the final count"
    )
    whole = outcome.acked == outcome.ready == outcome.as_browsers == args.students
    return 0 if outcome.exactly_once and whole and outcome.lag is not None else 1


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--window", type=float, default=10.0, help="seconds the votes spread over")
    parser.add_argument("--kill", action="store_true", help="kill a replica halfway through")
    parser.add_argument("--sqlite", action="store_true", help="SQLite file instead of PostgreSQL")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--typed",
        nargs="?",
        const="words",
        choices=sorted(TYPED),
        help="type an answer: a word (lesson 9, step 1) or a number (lesson 8, step 3)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    raise SystemExit(asyncio.run(run(parse(argv))))


if __name__ == "__main__":
    main()
