"""Standalone interactive HTML: a page's figures (and, when given, the BertViz-style head view)
as one file that opens anywhere without a server or a network: plotly.js is embedded once, from
the installed plotly package; the head view's script and style are inlined.

Everything a person typed reaches the file as text only: the title and the values caption are
HTML-escaped, figure data travels as JSON inside Plotly's own script (which escapes `</`), and the
head view's data is JSON with `<` escaped; its script writes tokens with textContent.

    html = figures_html("Attention on text", {"heads": fig}, caption={"ta_text": "..."})
    size = write_html(Path("view.html"), html)   # bytes written
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

STYLE = (
    "body{font-family:sans-serif;max-width:72rem;margin:1.5rem auto;padding:0 1rem;"
    "line-height:1.4;color:#262730}h1{font-size:1.6rem}h2{font-size:1.1rem;margin:1.6rem 0 .3rem}"
    ".values{font-family:monospace;font-size:.85rem;background:#f3f5f9;padding:.5rem .8rem;"
    "white-space:pre-wrap;word-break:break-word}.note{color:#555;font-style:italic}"
    ".figure{overflow-x:auto}"
)
CONFIG = {"displaylogo": False, "responsive": True}


def values_caption(values: Mapping[str, Any]) -> str:
    """The values as plain text lines `key = value` (repr of each value), sorted by key."""
    return "\n".join(f"{key} = {value!r}" for key, value in sorted(values.items()))


def _figure_div(name: str, figure: go.Figure | dict, first: bool) -> str:
    fig = figure if isinstance(figure, go.Figure) else go.Figure(figure)
    div = pio.to_html(fig, full_html=False, include_plotlyjs=first, config=CONFIG)
    return f'<h2>{html.escape(name)}</h2><div class="figure">{div}</div>'


def head_view_block(data: dict, script: str, style: str) -> str:
    """The head view component outside Streamlit: its module `script` (which exports a default
    function taking {data, parentElement, setStateValue}) run on `data` in a div of its own."""
    body = script.replace("export default function", "const drawHeadView = function", 1)
    if body == script:
        raise ValueError("the head view script has no 'export default function'")
    payload = json.dumps(data | {"clickable": False}).replace("<", "\\u003c")
    return (
        f"<h2>Head view</h2><style>{style}</style><div class='head-view'></div>"
        f"<script>(function(){{{body}\n;drawHeadView({{data:{payload},"
        "parentElement:document.currentScript.previousElementSibling,"
        "setStateValue:function(){}});})();</script>"
    )


def figures_html(
    title: str,
    figures: Mapping[str, go.Figure | dict],
    caption: Mapping[str, Any] | None = None,
    note: str = "",
    extra: str = "",
) -> str:
    """One offline HTML document: `title`, the `caption` values as text, an optional `note`
    (plain text), every figure under its name (plotly.js embedded once, before the first), then
    `extra` (trusted HTML built here, e.g. `head_view_block`)."""
    parts = [f"<h1>{html.escape(title)}</h1>"]
    if caption:
        parts.append(f'<pre class="values">{html.escape(values_caption(caption))}</pre>')
    if note:
        parts.append(f'<p class="note">{html.escape(note)}</p>')
    for number, (name, figure) in enumerate(figures.items()):
        parts.append(_figure_div(name, figure, number == 0))
    parts.append(extra)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body>{''.join(parts)}</body></html>"
    )


def write_html(path: Path, document: str) -> int:
    """Write `document` to `path` (UTF-8); returns its size in bytes."""
    data = document.encode("utf-8")
    Path(path).write_bytes(data)
    return len(data)
