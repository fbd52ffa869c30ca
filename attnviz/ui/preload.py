"""What the server imports before any session needs it, on one thread once it listens (see
attnviz.ui.serve), and the gate every session's script passes first (`wait`, in app.py).

The first page's run imported these (~0.5 s on a cold server); here they overlap the first
browser's boot of Streamlit's frontend (~0.6 s) instead. The gate keeps every session from
touching them half made: Plotly reads sys.modules["pandas"] without importing it ("partially
initialized module 'pandas'"). torch is not here: importing it holds the GIL for ~0.9 s, which
slowed the server's start and the frontend's files (home 2.8–3.4 s instead of ~2.1 s); a page's
`import torch` waits on the module's own lock, and the warm-up imports it later
(attnviz.ui.warm_up)."""

from __future__ import annotations

import threading

# pure libraries and engine modules only, nothing that registers with Streamlit's runtime
PRELOAD = (
    "pandas",
    "plotly.graph_objects",
    "plotly.io",
    "sqlalchemy",
    "attnviz.classroom",
)
_done = threading.Event()
_started = threading.Event()


def _run() -> None:
    try:
        for name in PRELOAD:
            try:
                __import__(name)
            except Exception:  # noqa: BLE001, S112  the page that needs it reports it
                continue
    finally:
        _done.set()


def expect() -> None:
    """Make every session's `wait` wait for `start`'s imports, called or not yet."""
    _started.set()


def start() -> threading.Thread:
    """Start the imports on their own thread (once per process)."""
    expect()
    thread = threading.Thread(target=_run, name="attnviz-preload", daemon=True)
    thread.start()
    return thread


def wait(timeout: float = 60) -> None:
    """Return once the imports are done; at once where neither `expect` nor `start` ran
    (`streamlit run`)."""
    if _started.is_set():
        _done.wait(timeout)
