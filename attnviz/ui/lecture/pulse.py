"""A room's pulse: what a phone following the presenter needs to know at once, the room's step
and open round, answered by the server without a script run, so that a phone hears of a move
within about a second instead of at its next two-second poll (issue 59).

`GET <base>_attnviz/room/<CODE>` answers `{"s": [step, round's step, round's number]}` (the
signature attnviz.classroom.views.signature draws a phone's page for; nulls without an open
round), or `{"s": null}` for a code that names no open room: nothing else, never a presenter's
key or a vote. Each code's answer is read from the store at most every `FRESH_S` seconds per
server process, so a hall of phones asking twice a second costs the database a few reads.
`install()` adds the route to Streamlit's own (called by attnviz.ui.serve before the server
starts); static/room_pulse.js asks it and reruns the page when the signature changed. The
panel's own poll (attnviz.ui.lecture.student) stays, for a page without JavaScript or a server
started otherwise.
"""

from __future__ import annotations

import threading
import time
from functools import cache
from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from streamlit import config

if TYPE_CHECKING:
    from attnviz.classroom import Store

PATH = "_attnviz/room/"
FRESH_S = 0.3  # an answer is reused this long (per code, per server process)
NO_STORE = {"Cache-Control": "no-store"}
_LOCK = threading.Lock()
_SEEN: dict[str, tuple[float, list | None]] = {}  # code -> (read at, signature)


@cache
def _store() -> Store:
    # the classroom (SQLAlchemy, ~80 ms) loads on the first pulse, or the server's preload, not
    # before the server listens: the route is installed before it starts
    from attnviz.classroom import Store

    return Store.from_env()


def fresh(code: str, now: float) -> tuple[bool, list | None]:
    """(whether the room's signature read within FRESH_S is kept, that signature)."""
    with _LOCK:
        found = _SEEN.get(code)
    if found is not None and now - found[0] < FRESH_S:
        return True, found[1]
    return False, None


def room_signature(code: str, now: float | None = None) -> list | None:
    """The room's signature as a list (None: no such open room), read again once FRESH_S has
    passed; StoreUnavailable when the database does not answer."""
    from attnviz.classroom import NoSuchRoom
    from attnviz.classroom.views import signature

    now = time.monotonic() if now is None else now
    kept, state = fresh(code, now)
    if kept:
        return state
    try:
        state = list(signature(_store().join(code)))
    except NoSuchRoom:
        state = None
    with _LOCK:
        if len(_SEEN) > 10_000:  # codes asked for are bounded by the rooms open, and guesses
            _SEEN.clear()
        _SEEN[code] = (now, state)
    return state


async def answer(request: Request) -> JSONResponse:
    """The route's endpoint: a kept signature on the server's event loop (most answers), the
    store read on a worker thread."""
    from attnviz.classroom import StoreUnavailable
    from attnviz.classroom.tokens import normalize_code

    code = normalize_code(str(request.path_params.get("code", "")))
    if code is None:
        return JSONResponse({"s": None}, headers=NO_STORE)
    kept, state = fresh(code, time.monotonic())
    try:
        if not kept:
            state = await run_in_threadpool(room_signature, code)
    except StoreUnavailable:  # the page's poll says "retrying"; the phone keeps its page
        return JSONResponse({"retry": True}, status_code=503, headers=NO_STORE)
    return JSONResponse({"s": state}, headers=NO_STORE)


def route_path() -> str:
    """The route under the server's base URL path ("/_attnviz/room/{code}")."""
    base = str(config.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/{PATH}{{code}}" if base else f"/{PATH}{{code}}"


def install() -> None:
    """Put the pulse's route before Streamlit's own (whose last route serves its files)."""
    from streamlit.web.server.starlette import starlette_app

    make = starlette_app.create_streamlit_routes

    def routes(runtime):  # type: ignore[no-untyped-def]
        return [Route(route_path(), answer, methods=["GET"]), *make(runtime)]

    starlette_app.create_streamlit_routes = routes
