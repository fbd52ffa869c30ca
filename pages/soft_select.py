"""Page 1: soft select (query · key · value), seeds 001 and 004: layout over its scene
(attnviz.topics.soft_select.scene)."""

import streamlit as st

from attnviz.core.attention import SCORE_LABELS
from attnviz.io.table_text import decode_table
from attnviz.topics.scene import SceneInputError
from attnviz.topics.soft_select.scene import (
    SCENE,
    example_table,
    live_data,
    table_text,
    terms_text,
)
from attnviz.ui.common import downloads, layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.plain_table import plain_table
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.settings import settings
from attnviz.ui.common.widgets import draw, preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish
from attnviz.ui.parts.soft_select import live_query_view

TABLE = SCENE.table


def move_query_to_click() -> None:
    """on_select callback: a click on the key plane moves the query there."""
    points = st.session_state["ss_plane"].selection.get("points", [])
    if points:
        st.session_state["ss_q1"] = round(float(points[0]["x"]), 1)
        st.session_state["ss_q2"] = round(float(points[0]["y"]), 1)


def forget_table() -> None:
    """Reset: back to the example table (the edited one lives in the URL and the editor)."""
    st.query_params.pop("ss_table", None)
    st.session_state.pop("ss_editor", None)


def table_from_url():
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

# the first screen (issue 54): the query that moves at once and its controls | the weights
live_col, weights_col = st.columns([1.1, 1])
with live_col:
    live_box = st.container()  # filled once the scene has run (it needs the weights)
    values = {key: draw(TABLE, key) for key in ("ss_q1", "ss_q2", "ss_score")}
    seeded = " (W seeded)" if values["ss_score"] in ("additive", "general") else ""
    st.caption(f"a(q, k) = {SCORE_LABELS[values['ss_score']]}{seeded}")
    values["ss_temp"] = draw(TABLE, "ss_temp")
    with st.expander("Edit the table of keys and values"):
        edited = st.data_editor(
            table_from_url(), num_rows="dynamic", hide_index=True, key="ss_editor"
        )

values = SCENE.values(values, ss_table=table_text(edited), seed=settings().seed)
try:
    out = scene_run(SCENE, values)
except SceneInputError as err:
    st.error(str(err))
    st.stop()
if values["ss_table"]:
    st.query_params["ss_table"] = values["ss_table"]
elif "ss_table" in st.query_params:
    del st.query_params["ss_table"]
publish(SCENE.answers(out, values))  # a lesson's question asks
figs = SCENE.views(out, values)
sel, names = out.select, out.names

with live_box:  # the query moves here without waiting for the server (issue 26)
    live_query_view(live_data(out), lecture=settings().lecture)
with weights_col:
    show(figs["weights"], "weights")
    show(figs["scores"], "scores")

hard, soft, mean = st.columns(3)
hard.metric(
    "Database select (hard)",
    f"{sel.hard_output[0]:.3f}",
    f"row '{names[sel.hard_index]}'",
    delta_color="off",
    delta_arrow="off",
)
soft.metric("Soft select Σ α_j v_j", f"{sel.output[0]:.3f}")
mean.metric("Plain mean of values (T → ∞)", f"{out.values.mean():.3f}")

plane_col, terms_col = st.columns([1.2, 1])  # the plane keeps its page-column width (square)
with plane_col:
    show(  # the live plane as a figure: a click moves q there; it exports as one
        figs["key_plane"],
        "key_plane",
        key="ss_plane",
        on_select=move_query_to_click,
        selection_mode="points",
    )
with terms_col:
    st.markdown("**3. The weighted sum, term by term**")
    # plain text cells (a Styler grid cost ~0.1 s a move); the names are the user's, as typed
    plain_table(terms_text(out), hide_index=True)
show(figs["temperature"], "temperature")

layout.try_this(SCENE.try_this)
downloads.matrices(
    {
        "scores": sel.scores[None, :],
        "weights": sel.weights[None, :],
        "output": sel.output[None, :],
    },
    "soft_select",
    key="ss_dl",
    labels={
        "scores": (["a(q, k_j)"], names),
        "weights": (["alpha_j"], names),
        "output": (["sum_j alpha_j v_j"], [f"v dim {j}" for j in range(len(sel.output))]),
    },
)
