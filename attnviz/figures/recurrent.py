"""Figures of the recurrence page: the alignment (output characters × input characters), exact
match by input length for both models, the encoder's states over time and what each has read,
and the sequential-vs-parallel timing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from attnviz.figures.base import SEQUENTIAL, base_layout, fast_figure, heatmap_spec
from attnviz.figures.fonts import NARROW_TITLE, titled

ZERO_WIDTH = "\u200b"  # makes repeated characters distinct categories without showing a mark
MODEL_COLOURS = {"with attention": "#1c7ed6", "no attention": "#2f9e44"}
ATTENTION = "self-attention layer"  # the timing chart's name for the parallel model
TIMING_COLOURS = {"RNN encoder": "#e8590c", ATTENTION: "#1c7ed6"}


def character_axis(chars: Sequence[str]) -> list[str]:
    """Characters as distinct axis categories that still read as themselves: the k-th repeat of
    a character gets k zero-width spaces (unique_labels would append "·k")."""
    seen: dict[str, int] = {}
    out = []
    for char in chars:
        out.append(char + ZERO_WIDTH * seen.get(char, 0))
        seen[char] = seen.get(char, 0) + 1
    return out


def alignment_figure(
    weights: np.ndarray, out_chars: Sequence[str], in_chars: Sequence[str], title: str
) -> go.Figure:
    """(Tout, Tin) weights: one row per output character, the input characters across; rows sum
    to 1."""
    trace, layout = heatmap_spec(
        weights,
        x_labels=character_axis(in_chars),
        y_labels=character_axis(out_chars),
        title=title,
        x_title="input character (what the encoder read)",
        y_title="output character (being written)",
        zmin=0.0,
        zmax=1.0,
        colorscale=SEQUENTIAL,
    )
    titled(layout, title, NARROW_TITLE)  # "Alignment at step 0 (untrained):" / its example
    layout["height"] = max(layout.get("height") or 0, 140 + 24 * len(out_chars))
    layout["xaxis"]["tickangle"] = 0  # single characters never collide
    return fast_figure([trace], layout)


def length_figure(rows: dict, title: str) -> go.Figure:
    """Share of output characters right (solid) and of dates written exactly (dotted) by input
    length, one colour per model; `rows` maps a model name to its LengthScores."""
    traces = []
    for name, scores in rows.items():
        x = np.array(scores.lengths, dtype=np.float32)
        counts = np.array(scores.counts, dtype=np.float32)
        for what, values, dash in (
            ("characters right", scores.characters, "solid"),
            ("dates exact", scores.exact, "dot"),
        ):
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": f"{name}: {what}",
                    "x": x,
                    "y": np.array(values, dtype=np.float32),
                    "customdata": counts,
                    "line": {"color": MODEL_COLOURS.get(name), "dash": dash},
                    "hovertemplate": f"{name}, {what}<br>%{{x}} characters in: %{{y:.0%}} "
                    "(%{customdata} dates)<extra></extra>",
                }
            )
    layout = base_layout(title, 380)
    layout["xaxis"] = {"title": {"text": "input length (characters)"}, "type": "linear"}
    layout["yaxis"] = {"title": {"text": "accuracy"}, "range": [0, 1.05], "tickformat": ".0%"}
    layout["legend"] = {"orientation": "h", "y": -0.25}
    return fast_figure(traces, layout)


def states_figure(states: np.ndarray, chars: Sequence[str], title: str) -> go.Figure:
    """(units, Tin) hidden states: one column per input step, one row per unit."""
    trace, layout = heatmap_spec(
        states,
        x_labels=character_axis(chars),
        y_labels=[f"unit {i}" for i in range(states.shape[0])],
        title=title,
        x_title="step (input character)",
        y_title="hidden unit",
        zmin=-1.0,
        zmax=1.0,
        colorscale="RdBu_r",
    )
    layout["yaxis"] = {
        "type": "category",
        "autorange": "reversed",
        "showticklabels": False,
        "title": {"text": f"hidden unit (1 … {states.shape[0]})"},
    }
    layout["xaxis"]["tickangle"] = 0
    layout["height"] = 320
    return fast_figure([trace], layout)


def read_figure(read: np.ndarray, chars: Sequence[str], title: str) -> go.Figure:
    """(Tin, Tin): [t, s] = how much state t changes when character s is blanked."""
    trace, layout = heatmap_spec(
        read,
        x_labels=character_axis(chars),
        y_labels=character_axis(chars),
        title=title,
        x_title="character blanked (s)",
        y_title="state at step t",
        zmin=0.0,
        colorscale=SEQUENTIAL,
    )
    trace["hovertemplate"] = "state at %{y}<br>blank %{x}<br>change: %{z:.3f}<extra></extra>"
    layout["xaxis"]["tickangle"] = 0
    return fast_figure([trace], layout)


def timing_figure(rows: list[dict], title: str) -> go.Figure:
    """Milliseconds per forward pass against sequence length (both axes log), both contenders;
    hover gives the sequential steps each needs."""
    lengths = np.array([r["length"] for r in rows], dtype=np.float32)
    series = {
        "RNN encoder": ("rnn_ms", "rnn_steps"),
        ATTENTION: ("attention_ms", "attention_steps"),
    }
    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": name,
            "x": lengths,
            "y": np.array([r[ms] for r in rows], dtype=np.float32),
            "customdata": np.array([r[steps] for r in rows], dtype=np.float32),
            "line": {"color": TIMING_COLOURS[name]},
            "hovertemplate": f"{name}<br>%{{x}} tokens: %{{y:.3f}} ms<br>"
            "%{customdata} sequential steps<extra></extra>",
        }
        for name, (ms, steps) in series.items()
    ]
    layout = base_layout(title, 380)
    layout["xaxis"] = {"title": {"text": "sequence length (tokens)"}, "type": "log"}
    layout["yaxis"] = {"title": {"text": "ms per forward pass (batch of 8)"}, "type": "log"}
    layout["legend"] = {"orientation": "h", "y": -0.25}
    return fast_figure(traces, layout)


def steps_figure(rows: list[dict]) -> go.Figure:
    """Sequential steps each needs: the RNN's grows with the length, attention's stays 1."""
    lengths = np.array([r["length"] for r in rows], dtype=np.float32)
    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": name,
            "x": lengths,
            "y": np.array([r[key] for r in rows], dtype=np.float32),
            "line": {"color": TIMING_COLOURS[name]},
            "hovertemplate": f"{name}<br>%{{x}} tokens: %{{y}} steps one after another"
            "<extra></extra>",
        }
        for name, key in (("RNN encoder", "rnn_steps"), (ATTENTION, "attention_steps"))
    ]
    layout = base_layout("Steps that must run one after another", 380)
    layout["xaxis"] = {"title": {"text": "sequence length (tokens)"}, "type": "log"}
    layout["yaxis"] = {"title": {"text": "sequential steps"}, "type": "log"}
    layout["legend"] = {"orientation": "h", "y": -0.25}
    return fast_figure(traces, layout)
