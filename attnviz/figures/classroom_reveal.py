"""What the projector shows on Reveal besides the votes per option: the shift chart (who moved
from which round-1 option to which round-2 option) and, for a predict-the-attention question,
the class's taps per token as a heatmap row beside the real head's row. Labels are text a person
may have typed (tokens), so they are HTML-escaped: Plotly renders tags in labels."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import SEQUENTIAL, heatmap_spec
from attnviz.figures.classroom import MARK, letter
from attnviz.figures.fonts import titled

NUMBERS_UP_TO = 16  # tokens: past this many, a cell is too narrow for "0.42" on a projector


def shift_figure(
    before: Sequence[str],
    after: Sequence[str],
    moves: np.ndarray,
    answer: str | None = None,
    height: int | None = None,
) -> go.Figure:
    """Round 1's options (`before`) down the side, round 2's (`after`) across, by their letters
    (the votes chart's labels give the text; the hover too), each cell the voters who made that
    move (`moves` (len(before), len(after)); the diagonal: who kept their answer); ✓ marks the
    right answer on both axes."""
    rows = [letter(i) + (MARK if option == answer else "") for i, option in enumerate(before)]
    cols = [letter(i) + (MARK if option == answer else "") for i, option in enumerate(after)]
    trace, layout = heatmap_spec(
        moves,
        x_labels=cols,
        y_labels=rows,
        x_title="round 2 (after discussing)",
        y_title="round 1 (alone)",
        zmin=0,
        zmax=max(1, int(np.max(moves, initial=0))),
        colorscale=SEQUENTIAL,
        show_numbers=True,
        number_format="d",
    )
    trace["customdata"] = [
        [[html.escape(a, quote=False), html.escape(b, quote=False)] for b in after] for a in before
    ]
    trace["hovertemplate"] = "%{customdata[0]} → %{customdata[1]}: %{z} voters<extra></extra>"
    trace["showscale"] = False
    layout["height"] = height or max(260, 150 + 60 * len(rows))
    layout["margin"].update(b=40)
    return go.Figure([trace], titled(layout, "Who moved between the two votes", chars=48))


def guesses_figure(
    tokens: Sequence[str],
    taps: Sequence[tuple[str, np.ndarray]],
    weights: np.ndarray,
    votes: int,
) -> go.Figure:
    """Rows over the tokens: each round's share of taps (`taps`: (row name, (T,) shares)) and the
    head's `weights` (T,), all summing to 1, on one colour scale; ✓ marks the token the head
    weights most."""
    top = int(np.argmax(weights))
    labels = [
        html.escape(t, quote=False) + (" ✓" if i == top else "") for i, t in enumerate(tokens)
    ]
    rows = np.stack([*(share for _, share in taps), weights])  # (rounds + 1, T)
    trace, layout = heatmap_spec(
        rows,
        x_labels=labels,
        y_labels=[*(name for name, _ in taps), "the head's weights"],
        x_title="token",
        y_title="",
        zmin=0.0,
        zmax=max(float(rows.max(initial=0.0)), 1e-9),
        colorscale=SEQUENTIAL,
        show_numbers=len(tokens) <= NUMBERS_UP_TO,
    )
    trace["hovertemplate"] = "%{y}<br>%{x}: %{z:.2f}<extra></extra>"
    trace["colorbar"] = {"title": {"text": "share"}}
    layout["height"] = 240 + 50 * len(rows)
    layout["margin"].update(b=40)
    taps_text = "1 tap" if votes == 1 else f"{votes} taps"
    title = f"Where the class thought the head looks, and where it looks ({taps_text})"
    return go.Figure([trace], titled(layout, title, chars=90))  # the dialog's whole width
