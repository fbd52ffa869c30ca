"""The live classroom's figures for typed answers (attnviz.lessons.typed_answers): the class's
words as a word map (each word a tile, its area by how many typed it, the model's top token in
orange) beside the model's ten likeliest next tokens, and the class's numbers as a histogram
with the true value and the class's median marked. Words are text a person typed: every label is
HTML-escaped (Plotly renders tags, and links, in labels and hovers)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from attnviz.figures.base import BAR_COLOR, HIGHLIGHT_COLOR, fast_figure
from attnviz.figures.classroom import ROUND_COLORS, ROUND_NAMES
from attnviz.figures.fonts import titled

MAX_TILES = 40  # words drawn; the rest are counted in the title
BINS = 20


def escaped(text: str, limit: int = 40) -> str:
    """A typed word or a token as a Plotly label: cut to `limit` characters, tags escaped."""
    cut = text if len(text) <= limit else text[: limit - 1] + "…"
    return html.escape(cut, quote=False)


def words_figure(
    shown: Mapping[str, int], top: str, height: int, title_chars: int = 44, lead: str = ""
):
    """The class's words (`shown`: word -> answers, most first) as tiles sized by their count;
    the word that is the model's top token (`top`) in orange, the others blue by count. `lead`
    ("␣"): each word as the tokenizer meets it after the prompt, with its leading space shown."""
    words = list(shown)[:MAX_TILES]
    more = len(shown) - len(words)
    counts = [int(shown[w]) for w in words]
    most = max(counts, default=1)
    colors = [
        HIGHLIGHT_COLOR if w == top else _blend(n / most)
        for w, n in zip(words, counts, strict=True)
    ]
    trace = dict(
        type="treemap",
        labels=[tile_label(lead + w) for w in words],
        parents=[""] * len(words),
        values=counts,
        ids=[f"w{i}" for i in range(len(words))],
        marker=dict(colors=colors, line=dict(color="#ffffff", width=2)),
        textinfo="label+value",
        textfont=dict(color="#ffffff"),
        insidetextfont=dict(color="#ffffff"),
        hoverinfo="none",  # the tile says it; a hover left over Reveal's button hid a tile
        sort=True,
        tiling=dict(pad=2),
    )
    title = "The class's words" + (" (orange: the model's first)" if top else "")
    if more:
        title += f", {more} more not drawn"
    layout = dict(height=height, margin=dict(l=4, r=4, t=50, b=4))
    return fast_figure([trace], titled(layout, title, chars=title_chars))


def tile_label(word: str, width: int = 12) -> str:
    """A typed word as a tile's label: escaped, a long one in lines of `width` characters (a
    narrow tile holds it, shrunk less)."""
    cut = word if len(word) <= 40 else word[:39] + "…"
    return "<br>".join(escaped(cut[i : i + width]) for i in range(0, len(cut), width))


def _blend(share: float) -> str:
    """Blue, darker for a more frequent word (white text stays readable on every shade)."""
    light, dark = (70, 110, 230), (30, 50, 160)
    rgb = [round(a + (b - a) * share) for a, b in zip(light, dark, strict=True)]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def model_figure(
    tokens: Sequence[str], probs: Sequence[float], typed: Sequence[int], height: int, chars=44
):
    """The model's likeliest next tokens (probability bars, the first in orange), each with how
    many students typed it (`typed`, in the tokens' order)."""
    pairs = zip(probs, typed, strict=True)
    text = [f"{float(p):.2f}" + (f" · {n} typed it" if n else "") for p, n in pairs]
    labels = [escaped(t.replace(" ", "␣")) for t in tokens]
    trace = dict(
        type="bar",
        orientation="h",
        x=[float(p) for p in probs],
        y=labels,
        marker=dict(color=[HIGHLIGHT_COLOR, *[BAR_COLOR] * (len(tokens) - 1)]),
        text=text,
        textposition="outside",
        textangle=0,  # a narrow bar's text turned sideways cannot be read on a projector
        cliponaxis=False,
        hovertemplate="%{y}: %{x:.3f}<extra></extra>",
    )
    layout = dict(
        height=height,
        margin=dict(l=10, r=20, t=50, b=30),
        xaxis=dict(
            title=dict(text="probability"),
            range=[0, 1.45],  # room for "0.80 · 3 typed it" after the longest bar
            tickvals=[0, 0.5, 1],
            automargin=True,
        ),
        yaxis=dict(type="category", autorange="reversed", automargin=True, dtick=1),
        showlegend=False,
    )
    return fast_figure([trace], titled(layout, "The model's next token", chars=chars))


def numbers_figure(
    rounds: Sequence[tuple[int, Sequence[float]]],
    span: tuple[float, float],
    marks: Sequence[tuple[float, str, bool]],
    height: int,
    chars: int = 44,
):
    """The class's numbers per round (`rounds`: round number, its values; a histogram each,
    side by side in each bin) on the range `span`, values outside it left out; `marks`: (x,
    label, is the true value) lines, the true value orange and solid, the others dashed."""
    low, high = span
    width = (high - low) or max(abs(high), 1.0)
    size = width / BINS
    overlaid = len(rounds) > 1
    data = [
        dict(
            type="histogram",
            x=[float(v) for v in values if low <= v <= high],
            name=ROUND_NAMES.get(number, f"Round {number}"),
            marker=dict(color=ROUND_COLORS.get(number, BAR_COLOR) if overlaid else BAR_COLOR),
            xbins=dict(start=low - size / 2, end=high + size / 2, size=size),
            hovertemplate="%{x}: %{y} answers<extra></extra>",
        )
        for number, values in rounds
    ]
    shapes, notes = [], []
    for i, (x, label, truth) in enumerate(marks):
        color = HIGHLIGHT_COLOR if truth else "#212529"
        line = dict(color=color, width=3, dash="solid" if truth else "dash")
        shapes.append(dict(type="line", x0=x, x1=x, y0=0, y1=1, yref="paper", line=line))
        notes.append(_mark_note(x, label, color, i))
    layout = dict(
        height=height,
        barmode="group" if overlaid else "overlay",
        bargap=0.05,
        shapes=shapes,
        annotations=notes,
        showlegend=overlaid,
        legend=dict(orientation="h", yanchor="top", y=-0.25, x=0),
        margin=dict(l=40, r=20, t=80, b=40),
        xaxis=dict(range=[low - width * 0.08, high + width * 0.08], automargin=True),
        yaxis=dict(title=dict(text="answers"), rangemode="tozero", automargin=True),
    )
    if max((len(values) for _, values in rounds), default=0) <= 10:
        layout["yaxis"].update(tick0=0, dtick=1)  # counts: no "0.5 answers" tick
    return fast_figure(data, titled(layout, "The class's numbers", chars=chars))


def _mark_note(x: float, label: str, color: str, row: int) -> dict:
    """A mark's label above the plot, the second one a line higher (they may be close)."""
    return dict(
        x=x,
        y=1.02 + 0.09 * row,
        xref="x",
        yref="paper",
        text=f"<b>{html.escape(label)}</b>",
        showarrow=False,
        font=dict(color=color),
        yanchor="bottom",
    )
