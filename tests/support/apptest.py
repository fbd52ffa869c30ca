"""AppTest helpers for driving pages as a person would (used by tests and benchmarks): open a
page, read its figures and head views, find and set its keyed widgets.

Importing it makes AppTest scan the installed packages for Streamlit components once per process
(`scan_components_once`), as a served app does at its start, instead of once per AppTest, and
wait for a script run by joining its thread instead of polling every millisecond
(`wait_without_polling`; tests/conftest.py imports it, so every AppTest of the suite does)."""

from __future__ import annotations

import base64
import functools
import json
import time

import numpy as np
import streamlit.components.v2.manifest_scanner as manifest_scanner
import streamlit.testing.v1.local_script_runner as local_script_runner
from streamlit.runtime.state.common import TESTING_KEY
from streamlit.testing.v1 import AppTest

from tests.support.pages import ROOT


def scan_components_once() -> None:
    """Every new AppTest scans the metadata of every installed package for Streamlit components
    (about 0.1 s here per AppTest); a served app does it once at its start. The
    installed packages do not change during a test run, so the scan's result is kept."""
    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)


scan_components_once()


def _join_the_run(runner, timeout: float = 3) -> None:
    """AppTest's wait for a script run (`require_widgets_deltas`), without its poll: Streamlit
    checks every 1 ms whether the run has stopped, and each wake takes the GIL from the page's
    thread (5-7 % more CPU for a run, measured here). The run ends with its thread (SHUTDOWN is
    sent before the thread returns), so joining the thread waits for it."""
    deadline = time.monotonic() + timeout
    thread = getattr(runner, "_script_thread", None)
    if thread is not None:
        thread.join(timeout)
    while not runner.script_stopped() and time.monotonic() < deadline:
        time.sleep(0.01)  # a run that ended otherwise than with its thread (not seen here)
    if not runner.script_stopped():
        runner.request_stop()
        runner.join()
        raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


def wait_without_polling() -> None:
    """AppTest waits for a script run with `_join_the_run` (once per process)."""
    local_script_runner.require_widgets_deltas = _join_the_run


wait_without_polling()


def open_page(path: str, query: dict | None = None, timeout: float = 120) -> AppTest:
    """Open `path` (e.g. "pages/soft_select.py") through app.py's navigation.

    With `query`, the page is opened as from a shared link: AppTest clears the URL on a page
    switch, so the page script runs first with those parameters (without app.py's sidebar).
    """
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    if query:
        at.switch_page(path)
        for key, value in query.items():
            at.query_params[key] = value
        return at.run()
    at.run()
    return at.switch_page(path).run()


def figures(at: AppTest) -> list[dict]:
    """Every Plotly figure on the page as a dict."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def head_views(at: AppTest) -> list[dict]:
    """The data of every head view (a custom component: tokens, lines per head, query); other
    components (the training pages' keyboard helper) carry no data."""
    return [json.loads(el.proto.json) for el in at.get("bidi_component") if el.proto.json]


def shown(at: AppTest) -> str:
    """A fingerprint of what the page shows: figures, head views, text, tables, messages."""
    parts = [json.dumps(figures(at), sort_keys=True), json.dumps(head_views(at), sort_keys=True)]
    for kind in ("markdown", "caption", "metric", "success", "info", "warning", "error", "code"):
        parts += [
            str(getattr(el, "value", "")) + str(getattr(el, "label", "")) for el in at.get(kind)
        ]
    for el in at.get("arrow_data_frame"):
        parts.append(str(el.proto.data)[:20000])
    return "\n".join(parts)


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def plotly_array(data) -> np.ndarray:
    """A figure's data field as an array (Plotly encodes float32 arrays as base64 `bdata`)."""
    if isinstance(data, dict) and "bdata" in data:
        flat = np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"])
        shape = data.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat
    return np.asarray(data)


CHANGEABLE = ("slider", "select_slider", "selectbox", "radio", "toggle", "checkbox", "number_input")


def keyed_widgets(at, kinds=CHANGEABLE) -> list[tuple[str, str]]:
    """(kind, key) of the main-area widgets that have a key, in page order."""
    found = []
    for kind in kinds:
        for widget in getattr(at.main, kind):
            if widget.key and not widget.key.startswith("$$") and not widget.disabled:
                found.append((kind, widget.key))
    order = {w.key: i for i, w in enumerate(_all_widgets(at))}
    return sorted(found, key=lambda kw: order.get(kw[1], 0))


def _all_widgets(at):
    return [n for n in at.main if hasattr(n, "key") and getattr(n, "key", None)]


def other_values(widget) -> list:
    """Values a person could pick that differ from the current one (extremes first)."""
    kind = type(widget).__name__.lower()
    if kind in ("toggle", "checkbox"):
        return [not widget.value]
    if kind in ("selectbox", "radio", "selectslider"):
        options = list(widget.options)  # as displayed
        current = options[widget.index] if hasattr(widget, "index") else str(widget.value)
        return [o for o in dict.fromkeys((options[-1], options[0])) if o != current]
    if kind == "slider":
        if isinstance(widget.value, tuple):
            return []
        return [v for v in (widget.min, widget.max) if v != widget.value]
    if kind == "numberinput":
        low = widget.min_value if widget.min_value is not None else widget.value - 1
        return [low] if low != widget.value else [widget.value + (widget.step or 1)]
    return []


def set_widget(at, kind: str, key: str, value) -> None:
    """Set a widget; choice widgets take the option as displayed."""
    widget = getattr(at, kind)(key=key)
    if kind in ("selectbox", "radio", "select_slider"):
        # AppTest maps values through the page's format_func; options here are already displayed
        at.session_state[TESTING_KEY][widget.id] = str
    widget.set_value(value)


def run_status(at) -> str:
    """The training panel's status line ("**done** — step 400 of 400 …"), or ""."""
    return next((m.value for m in at.markdown if "** — step" in m.value), "")


def train_until_done(at, timeout: float = 90) -> None:
    """Rerun the page (as its polling fragment would) until the run says done."""
    deadline = time.time() + timeout
    while "done" not in run_status(at) and time.time() < deadline:
        time.sleep(0.4)
        at.run()
        no_exception(at)
    assert "done" in run_status(at), run_status(at)


def training_page_fixture(path: str, prefix: str):
    """A pytest fixture for a training page's tests: it gives `open_(query=None)`, which opens
    `path` (as open_page), and in teardown presses Reset (`<prefix>_reset`) on every page it
    opened, so no test leaves a job running."""
    import pytest

    @pytest.fixture
    def page():
        opened: list[AppTest] = []

        def open_(query: dict | None = None) -> AppTest:
            opened.append(open_page(path, query))
            return opened[-1]

        yield open_
        for at in opened:
            reset = at.button(key=f"{prefix}_reset")
            if not reset.disabled:
                reset.click().run()

    return page
