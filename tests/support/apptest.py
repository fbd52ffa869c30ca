"""AppTest helpers for driving pages as a person would (used by tests and benchmarks)."""

from __future__ import annotations

import base64
import json

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.support.pages import ROOT


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
    """The data of every head view (a custom component: tokens, lines per head, query)."""
    return [json.loads(el.proto.json) for el in at.get("bidi_component")]


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
