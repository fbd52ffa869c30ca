"""Page 3: the self-attention layer of seed 004, one matrix at a time: layout over its scene
(attnviz.topics.self_attention.scene)."""

import streamlit as st

from attnviz.topics.scene import SceneInputError
from attnviz.topics.self_attention.params import MATRIX_URL_KEYS, STEP_NAMES
from attnviz.topics.self_attention.scene import BIAS_KEYS, MATRIX_NAMES, SCENE, seeded_for, stages
from attnviz.topics.self_attention.steps import step_labels
from attnviz.ui import downloads, layout
from attnviz.ui.figures import show
from attnviz.ui.lesson_answers import publish
from attnviz.ui.matrix_editor import edit_matrix
from attnviz.ui.scene_cache import scene_run
from attnviz.ui.settings import settings
from attnviz.ui.widgets import draw, preset_buttons, reset_button

TABLE = SCENE.table
STEP_LATEX = (  # each step's formula, shown under its heading
    r"z \in \mathbb{R}^{m \times d}",
    r"Q = zW_q + B_q,\quad K = zW_k + B_k,\quad V = zW_v + B_v",
    r"S = QK^\top,\quad S_{ij} = q_i \cdot k_j",
    r"S / \sqrt{e}",
    r"S_{ij} = -\infty \text{ where } j > i",
    r"A_{ij} = \frac{e^{S_{ij}}}{\sum_{j'} e^{S_{ij'}}}",
    r"\mathrm{out} = A\,V",
)
GRID_PREFIX = {"sa_z": "x", "sa_wv": "d₂ ", "sa_bv": "d₂ "}  # the others: "e"


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


def hand_edits(values: dict) -> dict[str, str] | None:
    """The input z and the six parameters, each in a titled grid (biases only when on): the
    URL text of each ("" = seeded), or None when a grid has a bad cell (its message shown)."""
    st.caption("Cells hold numbers; edits go into the URL, so a copied link keeps them.")
    texts = {}
    for key, default in seeded_for(values).items():
        if key in BIAS_KEYS and not values["sa_bias"]:
            continue  # zeros: the biases are switched off
        name = MATRIX_NAMES[key]
        title = "input $z$" if key == "sa_z" else f"${name}$"
        texts[key] = edit_matrix(default, name, key, GRID_PREFIX.get(key, "e"), title)
    return None if None in texts.values() else texts


def show_step(i: int, keys: tuple[str, ...], out, figs: dict) -> None:
    """Step i: its heading, formula, notes and matrices (and the weights behind Q, K, V)."""
    st.markdown(f"#### Step {i}: {STEP_NAMES[i - 1]}")
    latex = STEP_LATEX[i - 1]
    if keys == ("masked",) and not out.config.causal:
        latex = r"\text{no mask: } S \text{ unchanged}"
    st.latex(latex)
    for key in keys:  # Q, K, V one below the other: each as wide as z, numbers readable
        st.caption(out.steps[key].note)
        show(figs[f"step_{key}"], f"step_{key}")
    if keys == ("Q", "K", "V"):
        with st.expander("the weights behind Q, K, V"):
            for letter in "qkv":  # W next to its bias B: a row each for q, k, v
                for col, name in zip(st.columns(2), (f"W_{letter}", f"B_{letter}"), strict=True):
                    with col:
                        show(figs[name], name)


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
    values = {"sa_reveal": draw(TABLE, "sa_reveal")}
    prev_col, next_col = st.columns(2)
    playing = "lesson" in st.query_params  # presenter mode: ← and → walk the lesson's steps
    for col, label, delta, key, shortcut, hint in (
        (prev_col, "◀ Prev", -1, "sa_prev", "Left", "Previous step (← key)"),
        (next_col, "Next ▶", 1, "sa_next", "Right", "Next step (→ key)"),
    ):
        col.button(
            label,
            key=key,
            on_click=shift_reveal,
            args=(delta,),
            width="stretch",
            shortcut=None if playing else shortcut,
            wrap=True,
            help=None if playing else hint,
        )
    values["sa_row"] = draw(TABLE, "sa_row")
    values["sa_m"] = m = draw(TABLE, "sa_m")
    one_row = values["sa_row"]
    values["sa_i"] = draw(TABLE, "sa_i", high=max(m - 1, 1), disabled=m == 1 or not one_row)
    c1, c2 = st.columns(2)
    with c1:
        values |= {key: draw(TABLE, key) for key in ("sa_d", "sa_d2")}
    with c2:
        values["sa_e"] = draw(TABLE, "sa_e")
    values |= {key: draw(TABLE, key) for key in ("sa_causal", "sa_scaled", "sa_bias")}
values = SCENE.values(values, seed=settings().seed)
with edit_box:
    edits = hand_edits(values)
if edits is None:
    st.stop()
values = SCENE.values(values | edits)
try:
    out = scene_run(SCENE, values)
except SceneInputError as err:
    st.error(str(err))
    st.stop()
publish(SCENE.answers(out, values))  # a lesson's question asks which key query i picks
figs = SCENE.views(out, values)

with stage:
    for i, keys in enumerate(stages(values), 1):
        show_step(i, keys, out, figs)
    if "weights" in sum(stages(values), ()):
        sums = out.steps["weights"].matrix.sum(axis=1)
        st.success(
            f"Every row of the softmax sums to 1: row sums = {', '.join(f'{s:.3f}' for s in sums)}"
        )

layout.try_this(SCENE.try_this)
downloads.matrices(
    {s.title: s.matrix for s in out.steps.values()},
    "self_attention_steps",
    key="sa_dl",
    labels={s.title: step_labels(s) for s in out.steps.values()},
)
