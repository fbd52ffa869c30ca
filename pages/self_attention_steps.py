"""Page 3: the self-attention layer of seed 004, one matrix at a time."""

import streamlit as st

from attnviz.figures.steps import step_figure, weight_figures
from attnviz.topics.self_attention.steps import (
    LayerWeights,
    compute_steps,
    random_input,
    random_weights,
)
from attnviz.ui import downloads, layout
from attnviz.ui.figures import show
from attnviz.ui.matrix_editor import edit_matrix
from attnviz.ui.params.self_attention import MATRIX_URL_KEYS, STEP_NAMES, TABLE
from attnviz.ui.params.widgets import draw, preset_buttons, reset_button
from attnviz.ui.sidebar import settings

STEP_KEYS = [["z"], ["Q", "K", "V"], ["QK"], ["scaled"], ["masked"], ["weights"], ["out"]]


def shift_reveal(delta: int) -> None:
    """on_click for Previous/Next: move the reveal slider one step."""
    current = STEP_NAMES.index(st.session_state.get("sa_reveal", STEP_NAMES[-1]))
    st.session_state["sa_reveal"] = STEP_NAMES[max(0, min(len(STEP_NAMES) - 1, current + delta))]


def forget_hand_edits() -> None:
    """Reset: the hand-edited matrices leave the URL and their editors."""
    for key in MATRIX_URL_KEYS:
        st.query_params.pop(key, None)
    for key in [k for k in st.session_state if str(k).startswith("ed_")]:
        del st.session_state[key]


layout.intro(
    "Self-attention, step by step",
    "One input z of m patches (tokens), each a row of d numbers, goes through the layer of the "
    "lecture: **Q = zW_q + B_q**, **K = zW_k + B_k**, **V = zW_v + B_v**, then "
    "**softmax(QKᵀ/√e) V**. Every intermediate is shown with its numbers and shape. Reveal one "
    "step at a time, or one query row first and then the whole matrix.",
)
preset_buttons(TABLE)
reset_button(TABLE, on_reset=forget_hand_edits)

sizes, switches = st.columns([2, 1])
with sizes:
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        m = draw(TABLE, "sa_m")
    with c2:
        d = draw(TABLE, "sa_d")
    with c3:
        e = draw(TABLE, "sa_e")
    with c4:
        d2 = draw(TABLE, "sa_d2")
with switches:
    causal = draw(TABLE, "sa_causal")
    scaled = draw(TABLE, "sa_scaled")
    with_bias = draw(TABLE, "sa_bias")

seed = settings().seed
weights = random_weights(d, e, d2, seed, with_bias)
with st.expander("Edit the input z and the weights by hand"):
    st.caption("Cells hold numbers; edits go into the URL, so a copied link keeps them.")
    z = edit_matrix(random_input(m, d, seed), "z", "sa_z", "x")
    w_q = edit_matrix(weights.w_q, "W_q", "sa_wq", "e")
    w_k = edit_matrix(weights.w_k, "W_k", "sa_wk", "e")
    w_v = edit_matrix(weights.w_v, "W_v", "sa_wv", "d₂ ")
if z is None or w_q is None or w_k is None or w_v is None:
    st.stop()
weights = LayerWeights(w_q, weights.b_q, w_k, weights.b_k, w_v, weights.b_v)
steps = {s.key: s for s in compute_steps(z, weights, causal=causal, scaled=scaled)}

reveal_col, prev_col, next_col = st.columns([6, 1, 1])
with reveal_col:
    reveal = draw(TABLE, "sa_reveal")
prev_col.button("◀ Previous", on_click=shift_reveal, args=(-1,), width="stretch")
next_col.button("Next ▶", on_click=shift_reveal, args=(1,), width="stretch")
row_col, pick_col = st.columns([1, 3])
with row_col:
    one_row = draw(TABLE, "sa_row")
with pick_col:
    query = draw(TABLE, "sa_i", high=max(m - 1, 1), disabled=(m == 1 or not one_row))
query_row = min(query, m - 1) if one_row else None

shown = STEP_KEYS[: STEP_NAMES.index(reveal) + 1]
for i, keys in enumerate(shown, 1):
    st.markdown(f"#### Step {i}: {STEP_NAMES[i - 1]}")
    for key in keys:
        st.caption(steps[key].note)
    columns = st.columns(len(keys))
    for col, key in zip(columns, keys, strict=True):
        with col:
            show(step_figure(steps[key], query_row), f"step_{key}")
    if keys == ["Q", "K", "V"]:
        with st.expander("the weights behind Q, K, V"):
            params = {
                "W_q": weights.w_q,
                "B_q": weights.b_q,
                "W_k": weights.w_k,
                "B_k": weights.b_k,
                "W_v": weights.w_v,
                "B_v": weights.b_v,
            }
            for col, fig in zip(st.columns(3), weight_figures(params), strict=False):
                with col:
                    show(fig, "weights")

if "weights" in sum(shown, []):
    sums = steps["weights"].matrix.sum(axis=1)
    st.success(
        f"Every row of the softmax sums to 1: row sums = {', '.join(f'{s:.3f}' for s in sums)}"
    )

layout.try_this(
    [
        "Press **Lecture: 3 patches** and click **Next ▶** to reveal the layer one step at a time.",
        "Turn off *divide by √e* with e = 8: the softmax rows get peakier (closer to one-hot).",
        "Turn on the causal mask: the upper triangle becomes −∞ and its weights exactly 0.",
        "Edit z so two patches are identical: their rows of Q, K, V and of the output match.",
    ]
)
downloads.matrices(
    {s.title: s.matrix for key, s in steps.items()}, "self_attention_steps", key="sa_dl"
)
