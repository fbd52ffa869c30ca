"""Start the app as `streamlit run app.py` does, with one fix: a deep link as the first request
after a start lands on its page, not in a "Page not found" dialog that traps the keyboard.

Streamlit decides on its first session whether an app uses a `pages/` folder (multipage apps of
the first kind) and runs that session as such until app.py's `st.navigation` has run once; the
first visitor's page name is looked up among the folder's file names, is not found, and the
dialog stays over the right page (streamlit #9624). This app routes with `st.navigation` only
(attnviz.topics.registry), so it says so before the first session.

    python -m attnviz.ui.serve [streamlit run options…]

It also keeps the server's memory in bounds under many sessions: at most two glibc malloc
arenas; and it listens sooner, without Streamlit's scan of every installed package for
components (skip_component_scan), and draws the first page sooner, without its check for a
script run outside a server (skip_run_check).

Streamlit runs each script run on a thread of its own, and glibc gives busy threads arenas of
their own (up to 8 per core), each keeping what it once held. A language model's forward pass
allocates tens of MB of temporaries per run: a process holding SmolLM2-135M after 30 prompts on
30 threads held 1.43 GB with glibc's default and 1.16 GB with two arenas (benchmarks/llm.py
measures the server). Setting M_ARENA_MAX at start, before the sessions'
threads exist, is what MALLOC_ARENA_MAX=2 in the environment would do. Elsewhere than glibc
(macOS, Windows, musl) nothing changes.

Its index page names the server's base URL for the frontend (attnviz.ui.index_page), so a deep
link asks no path under the page's own (two 404s in the console on every deep link before).

It serves Streamlit's chart component changed so that a new chart is drawn once, not twice
(attnviz.ui.plotly_once), only once it is near the screen (attnviz.ui.plotly_in_view), and, in
the place of one drawn before, from the margins that one reached (attnviz.ui.plotly_margins).

Its connections send at once (TCP_NODELAY, attnviz.ui.no_delay): Streamlit's own listening
socket left Nagle's algorithm on, 44 ms on every static file of a reused connection.

It serves one route of its own beside Streamlit's: a live classroom room's pulse (the step and
open round a phone follows, attnviz.ui.lecture.pulse), so phones hear of a move within a second.

And it ends quickly: once Streamlit has stopped (SIGTERM, Ctrl-C), the exit handlers run (the
training pool ends its workers and its fork server) and the process leaves with os._exit,
without the interpreter's teardown (unloading torch and transformers took seconds on a busy
machine, while a supervisor waited on the process) nor waiting on a script thread still in a
model's forward pass.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
import sys

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web import cli

from attnviz.ui import (
    index_page,
    no_delay,
    plotly_in_view,
    plotly_margins,
    plotly_once,
    preload,
)
from attnviz.ui.lecture import pulse

M_ARENA_MAX = -8  # glibc's mallopt parameter number
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Ask glibc for at most `arenas` malloc arenas; whether it agreed (False off glibc)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):  # not glibc: no mallopt
        return False


def main(options: list[str] | None = None, app: str = "app.py") -> None:
    """`streamlit run <app>` with `options`, pages routed by st.navigation from the start
    (`app`: app.py of the working directory, or an installed package's, attnviz.api.cli)."""
    PagesManager.uses_pages_directory = False
    index_page.install()  # deep links ask the server where it is, not under the page's path
    plotly_once.install(chart_changes(plotly_in_view.wanted()))  # a new chart drawn once
    no_delay.install()  # a reply's second write waits for no acknowledgement (TCP_NODELAY)
    pulse.install()  # a room's phones hear of a move within a second (attnviz.ui.lecture.pulse)
    limit_malloc_arenas()  # before the sessions' threads exist
    skip_component_scan()  # listening ~0.13 s sooner: no installed component is used here
    skip_run_check()  # the first page's first element ~0.05 s sooner
    preload.expect()  # every session waits for the heavy imports…
    preload_once_listening()  # …which start once the server answers
    options = sys.argv[1:] if options is None else options
    try:
        cli.main(["run", app, *options], prog_name="streamlit")
        code = 0
    except SystemExit as end:
        code = exit_code(end)
    atexit._run_exitfuncs()  # the pool's workers and fork server, logging's flush
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def skip_component_scan() -> None:
    """Streamlit's runtime, before its server listens, reads the metadata of every installed
    distribution (~190 here, 0.13 s) for packages that declare components by manifest. This app
    uses none: its components are declared in its own code, which the scan does not look for."""
    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = lambda max_workers=None: []


def skip_run_check() -> None:
    """Streamlit checks, at the first element any script draws, whether it runs in a REPL or
    without `streamlit run`, to print how to run it: `inspect.stack()`, which resolves the file
    of every loaded module (~1,400: 47 ms, on the first visitor's page). Here the scripts run
    under this server, so there is nothing to print: the check counts as done."""
    from streamlit import delta_generator

    delta_generator._use_warning_has_been_displayed = True


def chart_changes(near: bool) -> plotly_once.Then:
    """Streamlit's chart component changed further, after plotly_once: drawn once near the
    screen (`near`: attnviz.ui.plotly_in_view) and from its last margins
    (attnviz.ui.plotly_margins)."""
    changes = [plotly_in_view.in_view] if near else []
    changes.append(plotly_margins.remembered)

    def changed(code: str) -> str:
        for change in changes:
            code = change(code) or code
        return code

    return changed


def preload_once_listening() -> None:
    """Start the heavy imports (attnviz.ui.preload) once the server listens, not before: on the
    same GIL they held Streamlit's start back (healthy after 0.95 s instead of 0.71 s), and the
    first browser's boot of the frontend (~0.7 s) still hides them."""
    from streamlit.web import bootstrap

    started = bootstrap._on_server_start

    def on_start(server) -> None:  # type: ignore[no-untyped-def]
        started(server)
        preload.start()

    bootstrap._on_server_start = on_start


def exit_code(end: SystemExit) -> int:
    """The status `sys.exit(end.code)` would leave with (None: 0; a message: 1)."""
    if end.code is None or isinstance(end.code, int):
        return end.code or 0
    print(end.code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    main()
