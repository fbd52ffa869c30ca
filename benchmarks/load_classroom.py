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
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field

import websockets
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.load import percentile
from benchmarks.load_client import StreamlitSession, Widget
from benchmarks.load_deploy import deployment, kill_replica

LESSON, STEP, PAGE = "01_select_to_self_attention", 3, "soft-select"  # three options to tap
ACK = ("Your vote", "already voted", "Your answer", "already answered")  # what a vote ends with
# --typed: each student types an answer (attnviz.ui.lecture.typed) instead of tapping: one of
# these words on lesson 9's first step ("what will the model say next?", the language model's
# page), or with --typed number one of these numbers on lesson 8's third (scores a window keeps)
TYPED = {
    "words": ("09_inside_a_language_model", 1, "language-model"),
    "number": ("08_attention_at_scale", 3, "attention-at-scale"),
}
ANSWERS = {
    "words": ("Berlin", "Paris", "Hamburg", "Munich", "berlin", "Germany"),
    "number": ("51", "48", "45", "60", "17", "324"),
}
QUESTION = {"typed": ""}  # set once by --typed (run): the students type instead of tapping


@dataclass
class Student:
    name: str
    voter: str  # the browser's id (localStorage)
    tab: StreamlitSession
    option: str = ""
    acked: bool = False
    replica: str = ""
    tries: int = 0


@dataclass
class Tally:
    times: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    acked: Counter = field(default_factory=Counter)  # option -> acknowledged votes
    last_ack: float = 0.0
    reconnects: int = 0


def with_browser_id(tab: StreamlitSession, voter: str) -> None:
    """Send the voter-id component's state with every rerun, as the browser would."""
    original = tab._element

    def element(msg) -> None:
        original(msg)
        found = msg.delta.new_element
        if found.WhichOneof("type") == "bidi_component" and "voter" in found.bidi_component.id:
            wid = found.bidi_component.id
            tab.states[wid] = WidgetState(id=wid, json_value=f'{{"id": "{voter}"}}')
            tab.widgets.setdefault(wid, Widget(wid, "bidi_component", found, "", True))

    tab._element = element


def options_of(tab: StreamlitSession, choices: list[str]) -> list[Widget]:
    """The option buttons, or for a typed question the box to type in."""
    if QUESTION["typed"]:
        return [w for w in tab.widgets.values() if w.kind == "text_input"]
    return [w for label in choices for w in tab.buttons(label)]


async def press(student: Student) -> tuple[Widget | None, object]:
    """Tap the student's option, or type their word and press Send: (the widget, its run)."""
    tab = student.tab
    if not QUESTION["typed"]:
        widget = next(iter(tab.buttons(student.option)), None)
        return widget, (None if widget is None else await tab.click(widget))
    box = next(iter(options_of(tab, [])), None)
    send = next(iter(tab.buttons("Send")), None)
    if box is None or send is None:
        return None, None
    tab.states[box.id] = WidgetState(id=box.id, string_value=student.option)
    return send, await tab.click(send)


async def join(student: Student, choices: list[str], timeout: float = 60) -> None:
    """Open the students' link and wait (through the panel's timer) for the options."""
    await student.tab.connect()
    result = await student.tab.run()
    if not result.ok:
        raise RuntimeError(f"{student.name}: {result.status} {result.exceptions[:1]}")
    if student.tab.states:  # the browser id's component sets its value: the browser reruns
        result = await student.tab.run()
    deadline = time.monotonic() + timeout
    while not options_of(student.tab, choices):
        if time.monotonic() > deadline or student.tab.closed:
            raise RuntimeError(f"{student.name}: the options never appeared")
        await asyncio.sleep(0.2)
    cookie = next((c.value for c in student.tab.cookies if c.name == "attnviz_replica"), "")
    student.replica = cookie


async def tap(student: Student, choices: list[str], tally: Tally) -> None:
    """Tap the student's option and wait for the acknowledgement."""
    student.tries += 1
    widget = None
    for _ in range(300):  # a rerun may be redrawing the widgets; a loaded replica takes seconds
        if any(mark in text for mark in ACK for text in student.tab.texts):  # a vote the store
            acknowledge(student, tally, 0.0)  # kept but never acknowledged (its replica was
            return  # killed): the page reloaded with the browser's id shows it, and no buttons
        if options_of(student.tab, [student.option]) or student.tab.closed:
            break
        await asyncio.sleep(0.1)
    student.tab.texts = []  # what the page says from now on
    started = time.perf_counter()
    widget, result = await press(student)
    if widget is None:
        tally.errors["the option was not on the page"] += 1
        return
    said = ""
    while time.perf_counter() - started < 15 and not student.tab.closed:
        said = " ".join(student.tab.texts)  # the panel's timer redraws it too
        if any(mark in said for mark in ACK):
            acknowledge(student, tally, time.perf_counter() - started)
            return
        await asyncio.sleep(0.02)
    if not student.tab.closed:
        tally.errors[f"no acknowledgement: {result.status} {said[:60]}"] += 1


def acknowledge(student: Student, tally: Tally, seconds: float) -> None:
    student.acked = True
    tally.times.append(seconds)
    tally.acked[student.option] += 1
    tally.last_ack = time.monotonic()


async def reconnect(student: Student, url: str, code: str, choices: list[str]) -> None:
    """A browser whose websocket was cut: same cookies, same browser id, a new session."""
    fresh = StreamlitSession(url, "", query=f"room={code}", tag=student.name)
    fresh.cookies = student.tab.cookies
    with_browser_id(fresh, student.voter)
    student.tab = fresh
    await join(student, choices)


async def vote(
    student: Student, url: str, code: str, choices: list[str], tally: Tally, start: float
) -> None:
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    while not student.acked and student.tries < 6:  # a student taps again, and again
        if student.tab.closed:
            tally.reconnects += 1
            try:
                await reconnect(student, url, code, choices)
            except (OSError, RuntimeError, websockets.WebSocketException) as err:
                tally.errors[f"reconnect: {type(err).__name__}"] += 1
                await asyncio.sleep(1)
                continue
        with contextlib.suppress(websockets.ConnectionClosed):
            await tap(student, choices, tally)


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
