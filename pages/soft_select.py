"""Page 1: soft select (query · key · value), seeds 001 and 004."""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.core.attention import SCORE_LABELS
from attnviz.figures import base as plots
from attnviz.figures.select import key_plane, temperature_figure
from attnviz.io.table_text import decode_table, encode_table
from attnviz.topics.soft_select.select import (
    example_table,
    score_params,
    soft_select,
    table_problems,
    temperature_sweep,
)
from attnviz.ui import downloads, layout
from attnviz.ui.figures import show
from attnviz.ui.lesson_answers import publish
from attnviz.ui.params.soft_select import TABLE, TRY_THIS
from attnviz.ui.params.widgets import draw, preset_buttons, reset_button
from attnviz.ui.sidebar import settings


def move_query_to_click() -> None:
    """on_select callback: a click on the key plane moves the query there."""
    points = st.session_state["ss_plane"].selection.get("points", [])
    if points:
        st.session_state["ss_q1"] = round(float(points[0]["x"]), 1)
        st.session_state["ss_q2"] = round(float(points[0]["y"]), 1)


def readable(value: float) -> str:
    """A number for a label or table: 4 decimals, and "< 0.0001" for a tiny nonzero value
    (never e-notation such as 7.02e-19, which reads as a large number on a projector)."""
    if value != 0 and abs(value) < 5e-5:
        return "< 0.0001" if value > 0 else "> −0.0001"
    return f"{value:.4f}"


def bar_labels(fig, values: np.ndarray):
    """Label each bar with `readable` numbers (3 decimals are enough above the tiny ones)."""
    fig.update_traces(text=[readable(v) if abs(v) < 5e-5 else f"{v:.3g}" for v in values])
    return fig


def forget_table() -> None:
    """Reset: back to the example table (the edited one lives in the URL and the editor)."""
    st.query_params.pop("ss_table", None)
    st.session_state.pop("ss_editor", None)


def table_from_url() -> pd.DataFrame:
    shared = st.query_params.get("ss_table")
    if not shared:
        return example_table()
    try:
        return decode_table(shared)
    except ValueError as err:
        st.warning(f"The table in the link could not be read ({err}); showing the example table.")
        return example_table()


layout.intro(
    "Soft select: query, keys, values",
    "A database **select** compares a query $q$ with every key $k_j$ and returns the value of the "
    "one key that matches. **Attention** is a *soft* select: it turns the scores $a(q, k_j)$ into "
    r"weights $\alpha_j = \mathrm{softmax}_j\big(a(q, k_j)/T\big)$ with $0 \le \alpha_j \le 1$ "
    r"and $\sum_j \alpha_j = 1$, and returns the weighted mix $\sum_j \alpha_j v_j$. Move the "
    "query, change the score function or the temperature $T$, and watch the weights.",
)
preset_buttons(TABLE)
reset_button(TABLE, on_reset=forget_table)

controls, plane_col = st.columns([1, 1.3])
with controls:
    q1 = draw(TABLE, "ss_q1")
    q2 = draw(TABLE, "ss_q2")
    score_name = draw(TABLE, "ss_score")
    seeded = " (W seeded)" if score_name in ("additive", "general") else ""
    st.caption(f"a(q, k) = {SCORE_LABELS[score_name]}{seeded}")
    temperature = draw(TABLE, "ss_temp")
    with st.expander("Edit the table of keys and values"):
        table = st.data_editor(
            table_from_url(), num_rows="dynamic", hide_index=True, key="ss_editor"
        )

problems = table_problems(table)
if problems:
    for problem in problems:
        st.error(problem)
    st.stop()
if encode_table(table) != encode_table(example_table()):
    st.query_params["ss_table"] = encode_table(table)
elif "ss_table" in st.query_params:
    del st.query_params["ss_table"]

glob = settings()
names = [str(n) for n in table["name"]]
keys = table[["key 1", "key 2"]].to_numpy(dtype=np.float64)
values = table[["value"]].to_numpy(dtype=np.float64)
query = np.array([q1, q2])
result = soft_select(query, keys, values, score_name, temperature, score_params(2, glob.seed))
publish("top_key", names[int(result.weights.argmax())], names)  # a lesson's question asks

with plane_col:
    show(
        key_plane(keys, names, query, result.weights),
        "key_plane",
        key="ss_plane",
        on_select=move_query_to_click,
        selection_mode="points",
    )

hard, soft, mean = st.columns(3)
hard.metric(
    "Database select (hard)",
    f"{result.hard_output[0]:.3f}",
    f"row '{names[result.hard_index]}'",
    delta_color="off",
    delta_arrow="off",
)
soft.metric("Soft select Σ α_j v_j", f"{result.output[0]:.3f}")
mean.metric("Plain mean of values (T → ∞)", f"{values.mean():.3f}")

score_col, weight_col = st.columns(2)
with score_col:
    scores = plots.bar_chart(result.scores, names, "1. Scores a(q, k_j)", "score")
    show(bar_labels(scores, result.scores), "scores")
with weight_col:
    weights = plots.bar_chart(
        result.weights,
        names,
        f"2. Weights α_j = softmax(a / {temperature:g})  (sum = {result.weights.sum():.3f})",
        "weight α",
        y_range=(0, 1.15),
        highlight=result.hard_index,
    )
    show(bar_labels(weights, result.weights), "weights")
st.markdown("**3. The weighted sum, term by term**")
st.dataframe(
    pd.DataFrame(
        {
            "name": names,
            "score a(q,k)": result.scores,
            "weight α": result.weights,
            "value v": values[:, 0],
            "α · v": result.weights * values[:, 0],
        }
    ).style.format(readable, subset=["score a(q,k)", "weight α", "value v", "α · v"]),
    hide_index=True,
)
sweep_t = np.geomspace(0.01, 100, 81)
show(
    temperature_figure(sweep_t, temperature_sweep(result.scores, sweep_t), names, temperature),
    "temperature",
)

layout.try_this(TRY_THIS)
downloads.matrices(
    {
        "scores": result.scores[None, :],
        "weights": result.weights[None, :],
        "output": result.output[None, :],
    },
    "soft_select",
    key="ss_dl",
    labels={
        "scores": (["a(q, k_j)"], names),
        "weights": (["alpha_j"], names),
        "output": (["sum_j alpha_j v_j"], [f"v dim {j}" for j in range(len(result.output))]),
    },
)
