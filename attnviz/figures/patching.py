"""Figures of "Finding the heads that answer": the two prompts' logit differences, patching maps
(layer × position, layer × head) with the picked cell boxed, a patched run's next tokens, the
estimate against the exact patch, direct logit attribution per head and MLP, the next tokens with
heads knocked out, and the circuit's heads' attention from the last token. Figures draw arrays
from attnviz.topics.interventions; they compute nothing about the model."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.axes import SPACED_MIN
from attnviz.figures.base import (
    BAR_COLOR,
    DIVERGING,
    HIGHLIGHT_COLOR,
    bar_chart,
    fast_figure,
    heatmap_spec,
)
from attnviz.figures.fonts import NARROW_TITLE, retitled, titled
from attnviz.figures.text import shown

EVERY_NTH_LAYER = 5  # 30 rows squeezed on a stage: every 5th layer named


def diff_figure(names: list[str], diffs: list[float], right: str, wrong: str) -> go.Figure:
    """The logit difference right − wrong of each run (clean, corrupted, ...), as bars."""
    right, wrong = html.escape(right, quote=False), html.escape(wrong, quote=False)
    title = f"Logit difference '{right}' − '{wrong}'"
    fig = bar_chart(np.array(diffs), names, title, "logit difference")
    colors = [BAR_COLOR if d >= 0 else HIGHLIGHT_COLOR for d in diffs]
    bound = max(abs(d) for d in diffs) * 1.5 or 1.0  # room for the value over the bar
    fig.update_traces(marker_color=colors).update_yaxes(range=[-bound, bound], nticks=4)
    return retitled(fig, title, 60).update_layout(height=200)  # whole under the prompts and
    # "Your own model" on a 1280x720 projector in lecture mode (tests/browser/test_lecture_mode)


def _layer_rows(layout: dict, layers: int) -> None:
    every = EVERY_NTH_LAYER if layers > 12 else 1
    y = layout["yaxis"]
    y.update(tickvals=y["tickvals"][::every], ticktext=y["ticktext"][::every])
    layout["height"] = max(layout.get("height") or 0, 60 + 16 * layers + 120)


def patch_map(
    share: np.ndarray,
    columns: list[str],
    title: str,
    x_title: str,
    picked: tuple[int, int] | None = None,
    bound: float = 1.0,
) -> go.Figure:
    """(L, N) share of the logit difference each patch brings back (1 = clean, 0 = corrupted),
    layers as rows, on a diverging scale from −bound to bound; the picked (layer, column)
    boxed. `columns` are labels already escaped (figures.text.shown)."""
    layers, word = share.shape[0], x_title.split(" (")[0]
    trace, layout = heatmap_spec(
        share,
        columns,
        [str(layer) for layer in range(layers)],
        title,
        x_title=html.escape(x_title, quote=False),  # it may name the prompts' tokens
        y_title="layer",
        zmin=-bound,
        zmax=bound,
        colorscale=DIVERGING,
    )
    trace["hovertemplate"] = (
        f"layer %{{y}}, {html.escape(word, quote=False)} %{{x}}"
        "<br>brings back %{z:.0%}<extra></extra>"
    )
    trace["colorbar"] = {"tickformat": ".0%", "title": {"text": "brought back"}}
    _level_labels(layout, len(columns))
    _layer_rows(layout, layers)
    if picked is not None:
        layer, col = picked
        layout["shapes"] = [_box(col, layer)]
    return fast_figure([trace], titled(layout, title, NARROW_TITLE))


def _level_labels(layout: dict, n: int) -> None:
    """Up to SPACED_MIN tokens: Plotly's own angle (level on a projector's stage, turned only
    where they would collide, as on a phone): upright labels took the height a stage's map
    needs for its rows."""
    if n <= SPACED_MIN:
        layout["xaxis"].pop("tickangle", None)


def _box(col: int, row: int) -> dict:
    return {
        "type": "rect",
        "x0": col - 0.5,
        "x1": col + 0.5,
        "y0": row - 0.5,
        "y1": row + 0.5,
        "line": {"color": "#000000", "width": 2},
    }


def tokens_figure(labels: list[str], probs: np.ndarray, title: str, mark: int | None) -> go.Figure:
    """A run's most likely next tokens; `mark` (an index) in orange (the right answer)."""
    fig = bar_chart(probs, shown(labels), title, "next token's probability", "", (0.0, 1.12), mark)
    return fig.update_layout(height=300)


def agreement(exact: np.ndarray, estimate: np.ndarray, names: list[str]) -> go.Figure:
    """Each head's exact patch against attribution patching's estimate (shares of the logit
    difference), with the line where they agree and their correlation in the title."""
    r = float(np.corrcoef(exact, estimate)[0, 1]) if exact.std() and estimate.std() else 1.0
    low = float(min(exact.min(), estimate.min(), 0.0)) - 0.05
    high = float(max(exact.max(), estimate.max(), 0.0)) + 0.05
    points = {
        "type": "scatter",
        "x": exact,
        "y": estimate,
        "mode": "markers",
        "name": "heads",
        "text": names,
        "marker": {"color": BAR_COLOR, "size": 7},
        "hovertemplate": "%{text}<br>exact %{x:.0%}<br>estimate %{y:.0%}<extra></extra>",
    }
    line = {
        "type": "scatter",
        "x": [low, high],
        "y": [low, high],
        "mode": "lines",
        "name": "estimate = exact",
        "line": {"color": "#868e96", "dash": "dash"},
        "hoverinfo": "skip",
    }
    title = f"Estimate against exact patch (r = {r:.2f})"
    layout = titled(
        {"margin": {"l": 10, "r": 10, "t": 60, "b": 10}, "height": 380}, title, NARROW_TITLE
    )
    layout["xaxis"] = {"title": {"text": "exact: share brought back"}, "tickformat": ".0%"}
    layout["yaxis"] = {"title": {"text": "attribution estimate"}, "tickformat": ".0%"}
    layout["legend"] = {"orientation": "h", "y": -0.25}
    return fast_figure([points, line], layout)


def dla_map(heads: np.ndarray, mlps: np.ndarray, total: float, whole: float) -> go.Figure:
    """Each head's part (columns 0..H−1) and each MLP's (last column) of the logit difference,
    layers as rows; the title says the parts' sum and the whole."""
    parts = np.concatenate([heads, mlps[:, None]], axis=1)  # (L, H + 1)
    bound = float(np.abs(parts).max()) or 1.0
    columns = [str(h) for h in range(heads.shape[1])] + ["MLP"]
    title = f"Each head's and MLP's part: sum {total:.3f}, logit difference {whole:.3f}"
    trace, layout = heatmap_spec(
        parts,
        columns,
        [str(layer) for layer in range(parts.shape[0])],
        title,
        x_title="head",
        y_title="layer",
        zmin=-bound,
        zmax=bound,
        colorscale=DIVERGING,
    )
    trace["hovertemplate"] = "layer %{y}, head %{x}<br>part %{z:.3f}<extra></extra>"
    trace["colorbar"] = {"title": {"text": "part"}}
    _layer_rows(layout, parts.shape[0])
    return fast_figure([trace], titled(layout, title, NARROW_TITLE))


def ablation_figure(
    labels: list[str], before: np.ndarray, after: np.ndarray, title: str
) -> go.Figure:
    """The next tokens' probabilities with every head (grey) and with heads knocked out."""
    names = shown(labels)
    traces = [
        {
            "type": "bar",
            "x": names,
            "y": ys,
            "name": name,
            "marker": {"color": color},
            "hovertemplate": f"{name}<br>%{{x}}: %{{y:.3f}}<extra></extra>",
        }
        for name, ys, color in (
            ("every head", before, "#adb5bd"),
            ("heads knocked out", after, BAR_COLOR),
        )
    ]
    layout = titled(
        {"margin": {"l": 10, "r": 10, "t": 60, "b": 10}, "height": 340}, title, NARROW_TITLE
    )
    layout["barmode"] = "group"  # the legend at the right, Plotly's default: above the bars
    # it ran into the title on a stage
    layout["yaxis"] = {"title": {"text": "probability"}, "range": [0, 1.05]}
    layout["xaxis"] = {"title": {"text": "token"}, "type": "category"}
    return fast_figure(traces, layout)


def circuit_figure(rows: np.ndarray, heads: list[str], tokens: list[str]) -> go.Figure:
    """(K, T): where each of the circuit's heads looks from the last token, one row per head."""
    trace, layout = heatmap_spec(
        rows,
        shown(tokens),
        heads,
        "Where the heads that matter look from the last token",
        x_title="",  # no axis titles: the tokens and head names say it, and a stage gives
        y_title="",  # this map's six rows the height they would take
        zmin=0.0,
        zmax=1.0,
    )  # no numbers in the cells: 14+ columns on a phone overprint them (the hover has them)
    _level_labels(layout, len(tokens))
    layout["height"] = max(layout.get("height") or 0, 120 + 44 * len(heads) + 100)
    return fast_figure([trace], titled(layout, layout["title"]["text"], NARROW_TITLE))
