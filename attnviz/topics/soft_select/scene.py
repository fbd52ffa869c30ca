"""The Soft select page as a scene (seeds 001, 004): a query against a table of keys and values,
scored, softmaxed at temperature T and mixed; views of the key plane, the scores, the weights and
the temperature sweep; the table of terms as plain text (`terms_text`); the lesson answer
`top_key`; `live_data`, what the browser's live query view recomputes the weights from."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attnviz.figures import base as plots
from attnviz.figures.select import BARS_MARGIN, key_plane, temperature_figure
from attnviz.io.table_text import decode_table, encode_table
from attnviz.topics.scene import Answer, Scene, SceneInputError, Values
from attnviz.topics.soft_select.params import TABLE, TRY_THIS
from attnviz.topics.soft_select.select import (
    SelectResult,
    example_table,
    score_arguments_json,
    score_params,
    soft_select,
    table_problems,
    temperature_sweep,
)
from attnviz.topics.views import View

SWEEP_T = np.geomspace(0.01, 100, 81)  # the temperature figure's x axis


@dataclass(frozen=True)
class SoftSelectConfig:
    query: tuple[float, float]
    score: str
    temperature: float
    table_text: str  # the table of keys and values as URL text; "" = the example table
    seed: int = 0


@dataclass(frozen=True)
class SoftSelectOutcome:
    config: SoftSelectConfig
    names: list[str]
    keys: np.ndarray  # (m, 2)
    values: np.ndarray  # (m, 1)
    select: SelectResult
    sweep: np.ndarray  # (len(SWEEP_T), m): the weights at each temperature


def table_text(table: pd.DataFrame) -> str:
    """A table as the page keeps it in the URL ("" for the example table)."""
    text = encode_table(table)
    return "" if text == encode_table(example_table()) else text


def read_table(text: str) -> pd.DataFrame:
    """The table a URL text stands for ("" = the example); SceneInputError if it cannot be read
    or cannot be scored (the message says why)."""
    try:
        table = example_table() if not text else decode_table(text)
    except ValueError as err:
        raise SceneInputError(f"The table could not be read ({err}).") from err
    problems = table_problems(table)
    if problems:
        raise SceneInputError(" ".join(problems))
    return table


def config(values: Values) -> SoftSelectConfig:
    query = (float(values["ss_q1"]), float(values["ss_q2"]))
    return SoftSelectConfig(
        query, values["ss_score"], values["ss_temp"], values["ss_table"], int(values["seed"])
    )


def run(config: SoftSelectConfig) -> SoftSelectOutcome:
    table = read_table(config.table_text)
    names = [str(n) for n in table["name"]]
    keys = table[["key 1", "key 2"]].to_numpy(dtype=np.float64)
    values = table[["value"]].to_numpy(dtype=np.float64)
    params = score_params(2, config.seed)
    select = soft_select(
        np.array(config.query), keys, values, config.score, config.temperature, params
    )
    sweep = temperature_sweep(select.scores, SWEEP_T)
    return SoftSelectOutcome(config, names, keys, values, select, sweep)


def readable(value: float) -> str:
    """A number for a label or table: 4 decimals, and "< 0.0001" for a tiny nonzero value
    (never e-notation such as 7.02e-19, which reads as a large number on a projector)."""
    if value != 0 and abs(value) < 5e-5:
        return "< 0.0001" if value > 0 else "> −0.0001"
    return f"{value:.4f}"


def bar_label(value: float) -> str:
    """A bar's label: 3 significant digits, "< 0.0001" below that (`.3g` writes 7.29e-05 there),
    whole numbers from 1000 on; never e-notation."""
    if value != 0 and abs(value) < 1e-4:
        return "< 0.0001" if value > 0 else "> −0.0001"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"


def _bar_labels(fig: go.Figure, values: np.ndarray) -> go.Figure:
    """Label each bar with `readable` numbers (3 decimals are enough above the tiny ones), in
    margins given up front."""
    fig.update_traces(text=[bar_label(v) for v in values])
    return fig.update_layout(margin=BARS_MARGIN)  # drawn once, not again by automargin


def key_plane_view(out: SoftSelectOutcome, values: Values) -> go.Figure:
    return key_plane(out.keys, out.names, np.array(out.config.query), out.select.weights)


def scores_view(out: SoftSelectOutcome, values: Values) -> go.Figure:
    scores = plots.bar_chart(out.select.scores, out.names, "1. Scores a(q, k_j)", "score")
    return _bar_labels(scores, out.select.scores)


def weights_view(out: SoftSelectOutcome, values: Values) -> go.Figure:
    sel, cfg = out.select, out.config
    title = f"2. Weights α_j = softmax(a / {cfg.temperature:g})  (sum = {sel.weights.sum():.3f})"
    weights = plots.bar_chart(
        sel.weights, out.names, title, "weight α", y_range=(0, 1.15), highlight=sel.hard_index
    )
    return _bar_labels(weights, sel.weights)


def temperature_view(out: SoftSelectOutcome, values: Values) -> go.Figure:
    return temperature_figure(SWEEP_T, out.sweep, out.names, out.config.temperature)


VIEWS = (
    View("key_plane", key_plane_view),
    View("scores", scores_view),
    View("weights", weights_view, main=True),
    View("temperature", temperature_view),
)


def terms(out: SoftSelectOutcome) -> pd.DataFrame:
    """The weighted sum term by term: name, score, weight, value, α · v."""
    sel = out.select
    return pd.DataFrame(
        {
            "name": out.names,
            "score a(q,k)": sel.scores,
            "weight α": sel.weights,
            "value v": out.values[:, 0],
            "α · v": sel.weights * out.values[:, 0],
        }
    )


def terms_text(out: SoftSelectOutcome) -> pd.DataFrame:
    """`terms` with its numbers as `readable` text (the page's table)."""
    table = terms(out)
    numbers = table.columns[1:]
    table[numbers] = table[numbers].map(readable)
    return table


def live_data(out: SoftSelectOutcome) -> dict:
    """What the browser's live query view (attnviz/ui/parts/soft_select.py) recomputes the weights
    from, JSON-ready: the table, the score function with its parameters exactly as `score` gets
    them, the temperature, the query and the query sliders' range and step."""
    cfg, slider = out.config, TABLE["ss_q1"]
    return {
        "names": out.names,
        "keys": out.keys.tolist(),
        "values": out.values.tolist(),
        "score": cfg.score,
        "params": score_arguments_json(cfg.score, out.keys.shape[1], cfg.seed),
        "temperature": float(cfg.temperature),
        "query": [float(q) for q in cfg.query],
        "low": float(slider.low),
        "high": float(slider.high),
        "step": float(slider.step),
    }


def answers(out: SoftSelectOutcome, values: Values) -> dict[str, Answer]:
    """`top_key`: the row with the largest weight."""
    return {"top_key": Answer.of(out.names[int(out.select.weights.argmax())], out.names)}


SCENE = Scene(
    url="soft-select",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    answers=answers,
    answer_names=("top_key",),
    extras={"ss_table": ""},
)
