"""Page 3: the self-attention layer of seed 004, one matrix at a time: layout over its scene
(attnviz.topics.self_attention.scene)."""

import streamlit as st

from attnviz.io.matrix_text import decode_matrix
from attnviz.topics.scene import SceneInputError
from attnviz.topics.self_attention.scene import (
    BIAS_KEYS,
    MATRIX_NAMES,
    MATRIX_URL_KEYS,
    SCENE,
    STEP_NAMES,
    live_row_data,
    seeded_for,
    stages,
    step_labels,
)
from attnviz.ui.common import downloads, layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.matrix_editor import edit_matrix
from attnviz.ui.common.scene_cache import scene_run
from attnviz.ui.common.settings import settings
from attnviz.ui.common.widgets import draw, preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish
from attnviz.ui.parts.self_attention import live_row_view

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
OPEN_WEIGHTS = "sa_open_w"  # the table's key of the lazy expander "the weights behind Q, K, V"
OPEN_EDITS = "sa_open_ed"  # the lazy expander "Edit z and the weights by hand" (a URL key)
LIVE_FROM = STEP_NAMES.index("Q Kᵀ")  # the live row shows once the scores are revealed
WEIGHT_NAMES = SCENE.section_views[OPEN_WEIGHTS]  # W_q beside B_q, …: the scene declares them
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


def link_edits(values: dict) -> dict[str, str]:
    """The hand edits as the link holds them, while their grids are folded away (not built): a
    text that does not fit its matrix is ignored, with a message, as an open grid would."""
    texts = {}
    for key, default in seeded_for(values).items():
        text = st.query_params.get(key, "")
        if text and not (key in BIAS_KEYS and not values["sa_bias"]):
            try:
                decode_matrix(text, default.shape)
            except ValueError as err:
                st.warning(f"The link's {MATRIX_NAMES[key]} was ignored: {err}.")
                text = ""
        texts[key] = text
    return texts


def show_step(i: int, keys: tuple[str, ...], out, figs: dict, values: dict) -> None:
    """Step i: its heading, formula, notes and matrices (and the weights behind Q, K, V)."""
    st.markdown(f"#### Step {i}: {STEP_NAMES[i - 1]}")
    latex = STEP_LATEX[i - 1]
    if keys == ("masked",) and not out.config.causal:
        latex = r"\text{no mask: } S \text{ unchanged}"
    if keys == ("scaled",) and not out.config.scaled:
        latex = r"\text{no scaling: } S \text{ unchanged}"
    st.latex(latex)
    for key in keys:  # Q, K, V one below the other: each as wide as z, numbers readable
        st.caption(out.steps[key].note)
        if f"step_{key}" in figs:  # not a step switched off: its matrix is the one above
            show(figs[f"step_{key}"], f"step_{key}")
    if keys == ("Q", "K", "V"):  # built only while open: 6 figures fewer on every move
        with layout.lazy_expander("the weights behind Q, K, V", OPEN_WEIGHTS) as box:
            if not box.open:
                return
            figs = SCENE.views(out, values, only=WEIGHT_NAMES)
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

# full width, filled below; its 7 grids are built only while open (~100 ms less render a move)
edit_box = layout.lazy_expander("Edit z and the weights by hand", OPEN_EDITS)
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
    # row i of the live view, and the one row the figures show in row mode
    values["sa_i"] = draw(TABLE, "sa_i", high=max(m - 1, 1), disabled=m == 1)
    c1, c2 = st.columns(2)
    with c1:
        values |= {key: draw(TABLE, key) for key in ("sa_d", "sa_d2")}
    with c2:
        values["sa_e"] = draw(TABLE, "sa_e")
    values |= {key: draw(TABLE, key) for key in ("sa_causal", "sa_scaled", "sa_bias")}
values = SCENE.values(values, seed=settings().seed, lecture=settings().lecture)
if edit_box.open:
    with edit_box:
        edits = hand_edits(values)
else:
    edits = link_edits(values)
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

# The live row comes first in lecture mode (the projector's first screen, beside the controls);
# on a laptop step 1's input z comes first, the page's main view whole in the first screen
LIVE_AFTER = 0 if settings().lecture else 1  # steps drawn before the live row
with stage:
    for i, keys in enumerate(stages(values), 1):
        if i == LIVE_AFTER + 1 and STEP_NAMES.index(values["sa_reveal"]) >= LIVE_FROM:
            live_row_view(live_row_data(out, values), lecture=settings().lecture)
        show_step(i, keys, out, figs, values)
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
