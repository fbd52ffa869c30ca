"""Figures of generation with attention over time (pretrained page, causal models): the map of
every generated token's attention over the prompt and the tokens before it, with the chosen step
framed, and that step's row as bars. Figures compute no attention: the rows come from
topics.pretrained.generation, the future already blank (NaN)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import bar_chart, fast_figure, heatmap_spec
from attnviz.figures.fonts import NARROW_TITLE, titled
from attnviz.figures.pretrained import MAP_HEIGHT
from attnviz.figures.text import shown

PROMPT_LINE = "#e8590c"  # the line between the prompt and the generated tokens
STEP_FRAME = "#fa5252"


def generation_map(
    rows: np.ndarray, tokens: list[str], n_prompt: int, step: int, title: str
) -> go.Figure:
    """rows (N, P + N): generated token k's weights over every position, NaN in its future.
    Rows are the generated tokens, columns the prompt then the generated tokens; a line splits
    them and a frame marks step `step` (1..N)."""
    n = rows.shape[0]
    labels = shown(tokens)
    trace, layout = heatmap_spec(
        rows,
        labels,
        [f"{k + 1}: {labels[n_prompt + k]}" for k in range(n)],
        title,
        x_title="key (prompt, then generated)",
        y_title="generated token (step)",
        zmin=0,
        zmax=1,
        colorscale="Blues",
    )
    trace["hoverongaps"] = False
    titled(layout, title, NARROW_TITLE)  # wrapped on a phone
    layout["shapes"] = [
        {  # prompt | generated
            "type": "line",
            "x0": n_prompt - 0.5,
            "x1": n_prompt - 0.5,
            "y0": -0.5,
            "y1": n - 0.5,
            "line": {"color": PROMPT_LINE, "width": 2, "dash": "dash"},
        },
        {  # the chosen step's row, up to the token itself
            "type": "rect",
            "x0": -0.5,
            "x1": n_prompt + step - 0.5,
            "y0": step - 1.5,
            "y1": step - 0.5,
            "line": {"color": STEP_FRAME, "width": 3},
        },
    ]
    layout["height"] = max(layout.get("height") or 0, min(MAP_HEIGHT, 160 + 24 * n), 300)
    return fast_figure([trace], layout)


def step_bars(row: np.ndarray, tokens: list[str], n_prompt: int, step: int) -> go.Figure:
    """The weights (P + step,) that generated token `step` gives the prompt and the tokens before
    it (its own position highlighted): the KV cache it reads holds exactly these positions."""
    seen = n_prompt + step
    labels = shown(tokens)[:seen]
    return bar_chart(
        row[:seen],
        labels,
        f"Step {step}: '{labels[-1]}' reads {seen} cached positions",
        "weight",
        y_range=(0, 1.1),
        highlight=seen - 1,
    )
