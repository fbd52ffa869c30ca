"""The live classroom's figure: the room's answers per option, rounds 1 and 2 side by side
(grouped bars), the model's answer marked. Option labels are text a person may have typed (a
token), so they are HTML-escaped: Plotly renders tags in labels."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from attnviz.figures.base import BAR_COLOR, HIGHLIGHT_COLOR, fast_figure
from attnviz.figures.fonts import titled

ROUND_COLORS = {1: "#adb5bd", 2: BAR_COLOR}  # grey, then blue: the second vote stands out
ROUND_NAMES = {1: "Round 1 (alone)", 2: "Round 2 (after discussing)"}
MARK = " ✓"  # after the model's answer on the axis


def option_label(option: str, answer: str | None) -> str:
    """An option as an axis label: escaped, cut to 40 characters, ✓ after the model's answer."""
    text = option if len(option) <= 40 else option[:39] + "…"
    return html.escape(text, quote=False) + (MARK if option == answer else "")


def letter(index: int) -> str:
    """The letter of the option at `index`: A, B, … (the shift chart's axes use them)."""
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def lettered_label(index: int, option: str, answer: str | None, width: int = 24) -> str:
    """ "A  One weight is close to 1,<br>the rest close to 0 ✓": the option's letter, its text
    escaped and wrapped at `width` characters a line (at most 3 lines), ✓ after the answer."""
    lines = textwrap.wrap(option, width) or [""]
    if len(lines) > 3:
        lines = [*lines[:2], lines[2][: width - 1] + "…"]
    text = "<br>".join(html.escape(line, quote=False) for line in lines)
    return f"<b>{letter(index)}</b>  {text}" + (MARK if option == answer else "")


def votes_figure(
    rounds: Sequence[tuple[int, Mapping[str, int]]],
    answer: str | None = None,
    height: int = 260,
    horizontal: bool = False,
    lettered: bool = False,
    title_chars: int = 60,
) -> go.Figure:
    """Grouped bars: one group per option (in the order of round 1's options), one bar per
    round; bar lengths are the votes. `answer` (the model's) is marked ✓ on a tinted band.
    `horizontal`: options down the side, bars across, labels unrotated; `lettered`: each label
    starts with its option's letter (as the shift chart's axes) and wraps; `title_chars`: the
    title's characters a line (34 on a phone)."""
    if not rounds:
        raise ValueError("No round was asked on this step.")
    options = list(rounds[0][1])
    if lettered:
        labels = [lettered_label(i, option, answer) for i, option in enumerate(options)]
    else:
        labels = [option_label(option, answer) for option in options]
    data = [
        _round_bars(number, counts, options, labels, len(rounds) > 1, horizontal)
        for number, counts in rounds
    ]
    votes_axis = dict(title=dict(text="" if horizontal else "Votes"), rangemode="tozero")
    votes_axis["automargin"] = True  # across, the bars' numbers say it: the legend goes there
    options_axis = dict(type="category", automargin=True)
    if horizontal:
        options_axis["autorange"] = "reversed"  # the first option on top, as on the buttons
    layout = dict(
        barmode="group",
        height=height,
        showlegend=len(rounds) > 1,
        legend=dict(orientation="h", yanchor="top", y=-0.12 if horizontal else -0.3, x=0),
        margin=dict(l=40, r=30, t=50, b=10),
        xaxis=votes_axis if horizontal else options_axis,
        yaxis=options_axis if horizontal else votes_axis,
    )
    if answer in options:
        layout["shapes"] = [_answer_band(options.index(answer), horizontal)]
    title = "The room's answers" + ("" if answer is None else " (✓ the model's answer)")
    return fast_figure(data, titled(layout, title, chars=title_chars))


def _round_bars(
    number: int,
    counts: Mapping[str, int],
    options: list[str],
    labels: list[str],
    coloured: bool,
    horizontal: bool,
) -> dict:
    """One round's bars over `options` (named `labels`), in its round's colour if `coloured`."""
    heights = [int(counts.get(option, 0)) for option in options]
    color = ROUND_COLORS.get(number, BAR_COLOR) if coloured else BAR_COLOR
    x, y = (heights, labels) if horizontal else (labels, heights)
    return dict(
        type="bar",
        x=x,
        y=y,
        orientation="h" if horizontal else "v",
        name=ROUND_NAMES.get(number, f"Round {number}"),
        marker=dict(color=color),
        text=[str(h) for h in heights],
        textposition="outside",
        textangle=0,  # Plotly turns a narrow bar's number sideways: read on a phone, it must not
        cliponaxis=False,
        hovertemplate="%{fullData.name}: %{text} votes<extra></extra>",
    )


def _answer_band(index: int, horizontal: bool) -> dict:
    """A tinted band behind the option at `index` (the model's answer), across the whole plot."""
    band = dict(x0=index - 0.5, x1=index + 0.5, y0=0, y1=1, xref="x", yref="paper")
    if horizontal:
        band = dict(y0=index - 0.5, y1=index + 0.5, x0=0, x1=1, yref="y", xref="paper")
    return dict(
        type="rect",
        **band,
        fillcolor=HIGHLIGHT_COLOR,
        opacity=0.12,
        line=dict(width=0),
        layer="below",
    )
