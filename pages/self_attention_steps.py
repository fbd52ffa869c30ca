"""Page 3: the self-attention layer of seed 004, one matrix at a time."""

import numpy as np
import streamlit as st

from attnviz.figures.steps import step_figure, weight_figures
from attnviz.topics.self_attention.params import MATRIX_URL_KEYS, STEP_NAMES, TABLE, TRY_THIS
from attnviz.topics.self_attention.steps import (
    LayerWeights,
    compute_steps,
    random_input,
    random_weights,
    step_labels,
)
from attnviz.ui import downloads, layout
from attnviz.ui.figures import show
from attnviz.ui.lesson_answers import publish
from attnviz.ui.matrix_editor import edit_matrix
from attnviz.ui.settings import settings
from attnviz.ui.widgets import draw, preset_buttons, reset_button

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


def hand_edits(
    m: int, d: int, e: int, d2: int, seed: int, with_bias: bool
) -> tuple[np.ndarray, LayerWeights] | None:
    """The input z and the six parameters, each in a titled grid (biases only when on)."""
    st.caption("Cells hold numbers; edits go into the URL, so a copied link keeps them.")
    start = random_weights(d, e, d2, seed, with_bias)
    z = edit_matrix(random_input(m, d, seed), "z", "sa_z", "x", "input $z$")
    edited = []
    for name, default, url_key, prefix in (
        ("W_q", start.w_q, "sa_wq", "e"),
        ("B_q", start.b_q, "sa_bq", "e"),
        ("W_k", start.w_k, "sa_wk", "e"),
        ("B_k", start.b_k, "sa_bk", "e"),
        ("W_v", start.w_v, "sa_wv", "d₂ "),
        ("B_v", start.b_v, "sa_bv", "d₂ "),
    ):
        if name.startswith("B") and not with_bias:
            edited.append(default)  # zeros: the biases are switched off
            continue
        edited.append(edit_matrix(default, name, url_key, prefix, f"${name}$"))
    if z is None or any(w is None for w in edited):
        return None
    return z, LayerWeights(*edited)


def show_step(
    i: int, keys: list[str], steps: dict, weights: LayerWeights, query_row: int | None
) -> None:
    """Step i: its heading, formula, notes and matrices (and the weights behind Q, K, V)."""
    st.markdown(f"#### Step {i}: {STEP_NAMES[i - 1]}")
    latex = STEP_LATEX[i - 1]
    if keys == ["masked"] and "off" in steps["masked"].title:
        latex = r"\text{no mask: } S \text{ unchanged}"
    st.latex(latex)
    for key in keys:  # Q, K, V one below the other: each as wide as z, numbers readable
        st.caption(steps[key].note)
        show(step_figure(key, steps[key].matrix, steps[key].title, query_row), f"step_{key}")
    if keys == ["Q", "K", "V"]:
        with st.expander("the weights behind Q, K, V"):
            for letter in "qkv":  # W next to its bias B: a row each for q, k, v
                w, b = getattr(weights, f"w_{letter}"), getattr(weights, f"b_{letter}")
                figs = weight_figures({f"W_{letter}": w, f"B_{letter}": b})
                for col, fig in zip(st.columns(2), figs, strict=True):
                    with col:
                        show(fig, "weights")


STEP_LATEX = (  # each step's formula, shown under its heading
    r"z \in \mathbb{R}^{m \times d}",
    r"Q = zW_q + B_q,\quad K = zW_k + B_k,\quad V = zW_v + B_v",
    r"S = QK^\top,\quad S_{ij} = q_i \cdot k_j",
    r"S / \sqrt{e}",
    r"S_{ij} = -\infty \text{ where } j > i",
    r"A_{ij} = \frac{e^{S_{ij}}}{\sum_{j'} e^{S_{ij'}}}",
    r"\mathrm{out} = A\,V",
)

layout.intro(
    "Self-attention, step by step",
    "One input $z$ of $m$ patches (tokens), each a row of $d$ numbers, goes through the layer of "
    "the lecture: $Q = zW_q + B_q$, $K = zW_k + B_k$, $V = zW_v + B_v$, then "
    r"$\mathrm{softmax}(QK^\top/\sqrt{e})\,V$. Every intermediate is shown with its numbers and "
    "shape. Reveal one step at a time (← / → on the keyboard), or one query row first and then "
    "the whole matrix.",
)
preset_buttons(TABLE)
reset_button(TABLE, on_reset=forget_hand_edits)

edit_box = st.expander("Edit z and the weights by hand")  # full width; filled below
controls, stage = st.columns([1, 2.3], gap="medium")
with controls:
    reveal = draw(TABLE, "sa_reveal")
    prev_col, next_col = st.columns(2)
    prev_col.button(
        "◀ Prev",
        key="sa_prev",
        on_click=shift_reveal,
        args=(-1,),
        width="stretch",
        shortcut="Left",
        wrap=True,
        help="Previous step (← key)",
    )
    next_col.button(
        "Next ▶",
        key="sa_next",
        on_click=shift_reveal,
        args=(1,),
        width="stretch",
        shortcut="Right",
        wrap=True,
        help="Next step (→ key)",
    )
    one_row = draw(TABLE, "sa_row")
    m = draw(TABLE, "sa_m")
    query = draw(TABLE, "sa_i", high=max(m - 1, 1), disabled=(m == 1 or not one_row))
    c1, c2 = st.columns(2)
    with c1:
        d = draw(TABLE, "sa_d")
        d2 = draw(TABLE, "sa_d2")
    with c2:
        e = draw(TABLE, "sa_e")
    causal = draw(TABLE, "sa_causal")
    scaled = draw(TABLE, "sa_scaled")
    with_bias = draw(TABLE, "sa_bias")
with edit_box:
    weights = hand_edits(m, d, e, d2, settings().seed, with_bias)
if weights is None:
    st.stop()
z, weights = weights
steps = {s.key: s for s in compute_steps(z, weights, causal=causal, scaled=scaled)}
query_row = min(query, m - 1) if one_row else None
patches = [f"patch {j}" for j in range(m)]  # a lesson's question asks which key query i picks
publish("top_key", patches[int(steps["weights"].matrix[min(query, m - 1)].argmax())], patches)

shown = STEP_KEYS[: STEP_NAMES.index(reveal) + 1]
with stage:
    for i, keys in enumerate(shown, 1):
        show_step(i, keys, steps, weights, query_row)
    if "weights" in sum(shown, []):
        sums = steps["weights"].matrix.sum(axis=1)
        st.success(
            f"Every row of the softmax sums to 1: row sums = {', '.join(f'{s:.3f}' for s in sums)}"
        )

layout.try_this(TRY_THIS)
downloads.matrices(
    {s.title: s.matrix for s in steps.values()},
    "self_attention_steps",
    key="sa_dl",
    labels={s.title: step_labels(s) for s in steps.values()},
)
