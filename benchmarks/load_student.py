"""A simulated student of the live classroom load test (benchmarks/load_classroom.py): a
browser's tab over Streamlit's websocket (load_client.StreamlitSession) with its browser id, who
joins the room's link, waits for the options (or the box of a typed question), taps its option or
types its answer, waits for the acknowledgement, and on a cut connection reconnects with the same
cookies and id and tries again."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field

import websockets
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.load_client import StreamlitSession, Widget

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
