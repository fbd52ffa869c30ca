"""The decimals a lesson step's narration or pointer quotes ("about −5.5", "0.842"), checked
against what its stage shows: each must be written in one of the step's views (its title, axis
titles, tick labels, annotations, a trace's text) or be one of the numbers a view draws (a bar's
height, a cell of a map) at the quoted precision ("−5.5" for a drawn −5.485), or be a setting of
the page (a control's value in the step's settings, the page's defaults or one of its presets:
"compare with $q = (0.5, 0.5)$"). Whole numbers (steps, years, sizes) and percentages are not
checked. The figures are the step's scene's (attnviz.lessons.views_check.staged_figures); a view
the page draws itself is not among them, so a number only it shows is refused.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import plotly.graph_objects as go

from attnviz.lessons.model import Step
from attnviz.lessons.views_check import staged_figures
from attnviz.topics.registry import scene

DECIMAL = re.compile(r"(?<![\w.,])[−-]?\d*\.\d+(?![\w.])")  # a quoted decimal: 0.842, −5.5
DRAWN = ("x", "y", "z", "text", "values")  # a trace's fields that are drawn as marks or words
WRITTEN = ("text", "ticktext", "texttemplate", "name")  # fields that are words on the figure


def _leaves(value: Any) -> Iterator[Any]:
    """Every string and number array under `value`, a figure's JSON form or part of it."""
    if isinstance(value, dict) and "bdata" in value:  # plotly's typed array: base64 + dtype
        data = base64.b64decode(value["bdata"])
        yield np.frombuffer(data, np.dtype(value["dtype"])).astype(float)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, str):
        yield value.replace("−", "-")
    elif isinstance(value, list | tuple | np.ndarray | int | float):
        array = np.asarray(value, dtype=object).ravel()
        numbers = [v for v in array if isinstance(v, int | float | np.number)]
        if numbers:
            yield np.asarray(numbers, dtype=float)
        for item in array:
            if isinstance(item, str | dict | list | tuple):
                yield from _leaves(item)


def _written(node: Any) -> Iterator[str]:
    """The words of a layout part: every WRITTEN field's strings, at any depth."""
    if isinstance(node, dict):
        for key, item in node.items():
            if key in WRITTEN:
                yield from (leaf for leaf in _leaves(item) if isinstance(leaf, str))
            else:
                yield from _written(item)
    elif isinstance(node, list):
        for item in node:
            yield from _written(item)


def on_figure(figure: go.Figure) -> tuple[list[str], list[np.ndarray]]:
    """(the words on the figure, the number arrays its traces draw)."""
    spec = figure.to_plotly_json()
    words = list(_written(spec.get("layout", {})))
    numbers = []
    for trace in spec.get("data", []):
        for key in DRAWN:
            for leaf in _leaves(trace.get(key, [])):
                (words if isinstance(leaf, str) else numbers).append(leaf)
        words += list(_written({k: v for k, v in trace.items() if k not in DRAWN}))
    return words, numbers


def settings(step: Step) -> list[float]:
    """The numbers the page's controls take in the step, by default and in each preset."""
    page = scene(step.page)
    found = [page.values(step.params), page.values({})]
    found += [page.values(page.table.preset(name)) for name in page.table.presets]
    return [
        float(v)
        for values in found
        for v in values.values()
        if isinstance(v, int | float) and not isinstance(v, bool)
    ]


def shown(quoted: str, figures: list[go.Figure], controls: list[float]) -> bool:
    """Whether `quoted` ("-5.5") is written on a figure, drawn by one at that precision, or is
    one of `controls`."""
    value, places = float(quoted), len(quoted.split(".")[1])
    if any(abs(value - c) < 1e-9 for c in controls):
        return True
    pattern = re.compile(rf"(?<![\d.]){re.escape(quoted)}(?!\d)")
    for words, numbers in map(on_figure, figures):
        if any(pattern.search(word) for word in words):
            return True
        if any(np.any(np.round(n, places) == round(value, places)) for n in numbers):
            return True
    return False


def numbers_unshown(step: Step) -> list[str]:
    """The decimals the step's narration or pointer quotes that its stage does not show."""
    quoted = DECIMAL.findall(f"{step.narration} \n {step.point_at}")
    if not quoted:
        return []
    figures, controls = staged_figures(step), settings(step)
    return [q for q in dict.fromkeys(quoted) if not shown(q.replace("−", "-"), figures, controls)]
