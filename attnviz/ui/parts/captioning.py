"""The captioning page's sections around its scene's views (attnviz.topics.captioning.scene):
which image to caption (a validation image, a new random scene or an upload) and whose attention
to show, the caption beside the true one, the scores, and, as lazy expanders (computed only while
open; open state in the URL), every layer and head, the measured attention on the named object,
and what the model says for held-out combinations."""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from attnviz.data.captions import build_captions
from attnviz.figures.captioning import word_names
from attnviz.topics.captioning.scene import (
    BLEU,
    HELD_OUT,
    MAX_UPLOAD_MB,
    MEAN,
    OWN,
    RANDOM,
    SCENE,
    TOKEN_ACCURACY,
    Captioned,
    CaptionJobSpec,
    Shown,
    figures,
    head_views,
    many_heads,
    shown_image,
)
from attnviz.topics.scene import Values
from attnviz.ui.common.figures import show
from attnviz.ui.common.layout import lazy_expander
from attnviz.ui.common.widgets import draw

SCENE_SEED = "cp_scene_seed"  # session key: how many times "New scene" was pressed
ONE_HEAD = "The GRU has one attention: nothing to pick"
NONE_HELD = "Hold-out is off: no combination is new"


def pick_image(values: Values, spec: CaptionJobSpec) -> tuple[dict[str, Any], Shown]:
    """One row: where the image comes from, which one, and whose attention the views show.
    Returns `values` with these choices, and the image shown."""
    task, model = build_captions(spec.task), spec.model
    source_col, image_col, head_col = st.columns([1.1, 1.3, 1])
    with source_col:
        chosen = {"cp_src": draw(SCENE.table, "cp_src")}
    with head_col:
        transformer = model.decoder == "transformer"
        views = head_views(model.n_layer, model.n_head) if transformer else [MEAN]
        chosen["cp_head"] = draw(
            SCENE.table,
            "cp_head",
            choices=views,
            disabled=not transformer,
            help=None if transformer else ONE_HEAD,
        )
    own, number = None, 0
    with image_col:
        if chosen["cp_src"] == OWN:
            own = _uploaded(task.spec.image_size)
        if chosen["cp_src"] == RANDOM:
            number = _random_scene(task.spec.held_out, chosen)
        elif own is None:
            chosen["cp_image"] = draw(SCENE.table, "cp_image", high=len(task.val_images) - 1)
    shown_values = SCENE.values(dict(values) | chosen)
    return shown_values, shown_image(task, shown_values, number, own)


def _random_scene(held_out: tuple, chosen: dict[str, Any]) -> int:
    """The New scene button and the held-out toggle; returns the scene's number."""
    st.button("New scene", key="cp_new_scene", icon=":material/casino:", on_click=_next_scene)
    chosen["cp_scene_held"] = draw(
        SCENE.table, "cp_scene_held", disabled=not held_out, help=None if held_out else NONE_HELD
    )
    return st.session_state.get(SCENE_SEED, 0)


def _next_scene() -> None:
    st.session_state[SCENE_SEED] = st.session_state.get(SCENE_SEED, 0) + 1


def _uploaded(size: int) -> np.ndarray | None:
    upload = st.file_uploader(
        f"PNG or JPEG, up to {MAX_UPLOAD_MB} MB; shrunk to {size}×{size} px",
        type=["png", "jpg", "jpeg"],
        key="cp_upload",
        max_upload_size=MAX_UPLOAD_MB,
    )
    if upload is None:
        st.caption("No image uploaded yet: the views show a validation image.")
        return None
    try:
        return SCENE.ops.upload(upload.getvalue(), size)
    except ValueError as err:
        st.error(f"That file cannot be used: {err}", icon=":material/image_not_supported:")
        return None


def words_view(seen: Captioned, figs: dict) -> None:
    """The caption and, per word, where it looked on the image (the page's main figure)."""
    show(figs["cp_words"], "cp_words", key="cp_words_chart")
    shown = seen.shown
    says = seen.look.caption or "(nothing)"
    line = f"**It says:** {says}"
    if shown.truth is not None:
        mark = "(right)" if says == shown.truth else "(not the true caption)"
        line += f" {mark}  \n**True caption:** {shown.truth}"
    st.markdown(line)
    st.caption(
        f"{shown.name.capitalize()}. One panel per word: where it looked (orange), coloured "
        "up to its largest weight or 3 × the even share, whichever is larger, so a map that "
        "looks everywhere stays faint. Scrub the timeline (once paused or done) to watch the "
        "looking form."
    )


def scores(history) -> None:
    """Exact match, token accuracy, BLEU and held-out exact match on validation captions."""
    evaluated = history is not None and history.val_metric
    when = f"at step {history.eval_step[-1]}" if evaluated else "before training"
    values = {
        "exact match": history.val_metric[-1] if evaluated else None,
        "token accuracy": history.latest_extra(TOKEN_ACCURACY) if evaluated else None,
        "BLEU": history.latest_extra(BLEU) if evaluated else None,
        "held-out exact": history.latest_extra(HELD_OUT) if evaluated else None,
    }
    tips = {
        "exact match": "Captions of seen combinations right word for word",
        "token accuracy": "Words right at their position",
        "BLEU": "n-gram overlap with the true caption (1–4 grams, 0…1)",
        "held-out exact": "Exact match on scenes with a combination never trained on",
    }
    for column, (name, value) in zip(st.columns(4), values.items(), strict=True):
        shown = "–" if value is None else f"{value:.0%}" if name != "BLEU" else f"{value:.2f}"
        column.metric(name, shown, help=f"{tips[name]}; validation images, {when}")


def matrix_view(seen: Captioned, figs: dict) -> None:
    """The cross-attention of the caption as one matrix: words × regions."""
    show(figs["cp_matrix"], "cp_matrix", key="cp_matrix_chart")
    grid = seen.trained.model.config.grid
    st.caption(
        "The same weights as the panels above, one row per word: each row sums to 1 over the "
        f"{grid * grid} regions of the image (numbered row,column)."
    )


def heads_section(seen: Captioned) -> None:
    """Every layer and head for every word (a transformer decoder only: the GRU has one
    attention, the panels above are all of it)."""
    if not many_heads(seen):
        return
    with lazy_expander("Every layer and head, word by word", "cp_open_heads") as box:
        if not box.open:
            return
        show(
            figures(seen, {"cp_head_maps"})["cp_head_maps"],
            "cp_head_maps",
            key="cp_head_maps_chart",
        )
        st.caption("Columns: " + " · ".join(word_names(seen.look.words)))


def share_section(seen: Captioned) -> None:
    """The measured share of the colour and shape words' attention on the shape they name."""
    with lazy_expander("Attention on the named object (measured)", "cp_open_share") as box:
        if not box.open:
            return
        found = seen.share
        left, right = st.columns([1, 2])
        words = f"Mean over {found.n_words} colour and shape words, {seen.when}"
        left.metric("on the named shape", f"{found.share:.0%}", help=words)
        left.metric(
            "spread evenly",
            f"{found.area_share:.0%}",
            help="The named shape's share of the regions",
        )
        with right:
            show(figures(seen, {"cp_share"})["cp_share"], "cp_share", key="cp_share_chart")
        st.caption(
            "Teacher-forced on validation captions of seen combinations: for every colour and "
            "shape word, the share of its cross-attention on the regions covering the shape it "
            "names. Evenly spread attention would give the dashed line."
        )


def held_out_section(seen: Captioned) -> None:
    """What the model says for the shapes of held-out combinations (never in training)."""
    label = "Held-out combinations: what does it say for a blue triangle?"
    with lazy_expander(label, "cp_open_held") as box:
        if not box.open:
            return
        found = seen.held
        if found is None:
            st.info(
                "Hold-out is off: every combination is in training. Switch on **hold out "
                "blue triangles** to test a combination the model never saw."
            )
            return
        rates = {
            "colour word right": found.colour_right,
            "shape word right": found.kind_right,
            "both right": found.both_right,
        }
        for column, (name, value) in zip(st.columns(3), rates.items(), strict=True):
            column.metric(name, f"{value:.0%}", help=f"Of {found.n_shapes} held-out shapes")
        figs = figures(seen, {"cp_said", "cp_held_examples"})
        left, right = st.columns([1, 1.3])
        with left:
            show(figs["cp_said"], "cp_said", key="cp_said_chart")
        with right:
            show(figs["cp_held_examples"], "cp_held_examples", key="cp_held_examples_chart")
        st.markdown(_said_list(seen))


def _said_list(seen: Captioned) -> str:
    """What the model says for each held-out example, beside the true caption (a Markdown list
    of grammar words only)."""
    captions = seen.trained.task.val_captions
    return "\n".join(
        f"- **#{i}** says “{says or '(nothing)'}”; true: “{captions[i]}”"
        for i, says in seen.examples
    )
