"""The captioning page's views of a trained (or untrained) captioner: which image to caption (a
validation image, a new random scene or an upload), the caption word by word with each word's
attention drawn on the image, the scores, the cross-attention matrix, and, as lazy expanders
(computed only while open; open state in the URL), every layer and head, the measured attention
on the named object, and what the model says for held-out combinations."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from attnviz.data.captions import new_scene
from attnviz.figures.captioning import (
    cross_attention_figure,
    heads_figure,
    said_figure,
    share_figure,
    word_names,
    words_figure,
)
from attnviz.figures.vision import Panel, panels_figure
from attnviz.topics.captioning.inference import (
    CaptionLook,
    caption_image,
    held_out_words,
    object_attention_share,
)
from attnviz.topics.captioning.params import MEAN, OWN, RANDOM, TABLE, head_views
from attnviz.topics.captioning.task import BLEU, HELD_OUT, TOKEN_ACCURACY, TrainedCaptioner
from attnviz.topics.vision.uploads import read_image
from attnviz.ui.figures import show
from attnviz.ui.layout import lazy_expander
from attnviz.ui.widgets import draw

SCENE_SEED = "cp_scene_seed"  # session key: how many times "New scene" was pressed


@dataclass(frozen=True)
class Shown:
    """The image the views caption, what it is, and its true caption (None for an upload)."""

    image: np.ndarray  # (3, S, S) in [0, 1]
    name: str
    truth: str | None


def pick_image(trained: TrainedCaptioner) -> tuple[Shown, str]:
    """One row: where the image comes from, which one, and whose attention the views show.
    Returns the image shown and the head view ("mean …" or "layer l, head h")."""
    task, config = trained.task, trained.model.config
    source_col, image_col, head_col = st.columns([1.1, 1.3, 1])
    with source_col:
        source = draw(TABLE, "cp_src")
    with head_col:
        transformer = config.decoder == "transformer"
        views = head_views(config.n_layer, config.n_head) if transformer else [MEAN]
        head = draw(TABLE, "cp_head", choices=views, disabled=not transformer,
                    help=None if transformer else "The GRU has one attention: nothing to pick")  # fmt: skip
    with image_col:
        if source == OWN:
            own = _uploaded(config.image_size)
            if own is not None:
                return Shown(own, "your image", None), head
        elif source == RANDOM:
            return _random_scene(trained), head
        index = draw(TABLE, "cp_image", high=len(task.val_images) - 1)
    held = " (a held-out combination)" if bool(task.val_held_out[index]) else ""
    truth = task.val_captions[index]
    return Shown(task.val_images[index].numpy(), f"validation image {index}{held}", truth), head


def _random_scene(trained: TrainedCaptioner) -> Shown:
    spec = trained.task.spec
    st.button("New scene", key="cp_new_scene", icon=":material/casino:", on_click=_next_scene)
    held = draw(TABLE, "cp_scene_held", disabled=not spec.held_out,
                help=None if spec.held_out else "Hold-out is off: no combination is new")  # fmt: skip
    number = st.session_state.get(SCENE_SEED, 0)
    image, _, truth = new_scene(spec, number, held=held and bool(spec.held_out))
    return Shown(image, f"random scene {number}", truth)


def _next_scene() -> None:
    st.session_state[SCENE_SEED] = st.session_state.get(SCENE_SEED, 0) + 1


def _uploaded(size: int) -> np.ndarray | None:
    upload = st.file_uploader(
        f"PNG or JPEG, up to 10 MB; shrunk to {size}×{size} px",
        type=["png", "jpg", "jpeg"],
        key="cp_upload",
    )
    if upload is None:
        st.caption("No image uploaded yet: the views show a validation image.")
        return None
    try:
        return read_image(upload.getvalue(), size, 3)
    except ValueError as err:
        st.error(f"That file cannot be used: {err}", icon=":material/image_not_supported:")
        return None


def chosen(look: CaptionLook, head: str) -> tuple[np.ndarray, np.ndarray]:
    """The shown attention: (T, g, g) maps and (T, R) weights of one head, or their mean."""
    if head == MEAN:
        return look.grid_maps.mean((1, 2)), look.attention.mean((1, 2))
    layer, number = (int(part.split()[-1]) for part in head.split(", "))
    return look.grid_maps[:, layer, number], look.attention[:, layer, number]


def words_view(look: CaptionLook, shown: Shown, head: str, step: int | None) -> None:
    """The caption and, per word, where it looked on the image (the page's main figure)."""
    maps, _ = chosen(look, head)
    which = "" if head == MEAN else f" ({head})"
    figure = words_figure(
        shown.image, look.words, maps, f"Where words look, step {step or 0}{which}"
    )
    show(figure, "cp_words", key="cp_words_chart")
    says = look.caption or "(nothing)"
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


def matrix_view(look: CaptionLook, head: str, grid: int) -> None:
    """The cross-attention of the caption as one matrix: words × regions."""
    _, weights = chosen(look, head)
    which = "" if head == MEAN else f" ({head})"
    title = f"Cross-attention, words × regions{which}"
    show(cross_attention_figure(weights, look.words, grid, title), "cp_matrix",
         key="cp_matrix_chart")  # fmt: skip
    st.caption(
        "The same weights as the panels above, one row per word: each row sums to 1 over the "
        f"{grid * grid} regions of the image (numbered row,column)."
    )


def heads_section(look: CaptionLook, shown: Shown) -> None:
    """Every layer and head for every word (a transformer decoder only: the GRU has one
    attention, the panels above are all of it)."""
    if look.attention.shape[1] * look.attention.shape[2] == 1:
        return
    with lazy_expander("Every layer and head, word by word", "cp_open_heads") as box:
        if not box.open:
            return
        figure = heads_figure(shown.image, look.words, look.grid_maps,
                              "Each layer and head (rows) for each word (columns)")  # fmt: skip
        show(figure, "cp_heads", key="cp_heads_chart")
        st.caption("Columns: " + " · ".join(word_names(look.words)))


def share_section(trained: TrainedCaptioner, step: int | None) -> None:
    """The measured share of the colour and shape words' attention on the shape they name."""
    with lazy_expander("Attention on the named object (measured)", "cp_open_share") as box:
        if not box.open:
            return
        found = object_attention_share(trained.model, trained.task)
        when = f"step {step}" if step is not None else "step 0"
        left, right = st.columns([1, 2])
        left.metric("on the named shape", f"{found.share:.0%}",
                    help=f"Mean over {found.n_words} colour and shape words, {when}")  # fmt: skip
        left.metric("spread evenly", f"{found.area_share:.0%}",
                    help="The named shape's share of the regions")  # fmt: skip
        with right:
            show(share_figure(found.per_head, found.area_share,
                              f"Attention on the named shape, {when}"), "cp_share",
                 key="cp_share_chart")  # fmt: skip
        st.caption(
            "Teacher-forced on validation captions of seen combinations: for every colour and "
            "shape word, the share of its cross-attention on the regions covering the shape it "
            "names. Evenly spread attention would give the dashed line."
        )


def held_out_section(trained: TrainedCaptioner) -> None:
    """What the model says for the shapes of held-out combinations (never in training)."""
    label = "Held-out combinations: what does it say for a blue triangle?"
    with lazy_expander(label, "cp_open_held") as box:
        if not box.open:
            return
        task = trained.task
        if not task.spec.held_out:
            st.info("Hold-out is off: every combination is in training. Switch on **hold out "
                    "blue triangles** to test a combination the model never saw.")  # fmt: skip
            return
        found = held_out_words(trained.model, task)
        columns = st.columns(3)
        for column, (name, value) in zip(columns, (("colour word right", found.colour_right),
                                                   ("shape word right", found.kind_right),
                                                   ("both right", found.both_right)), strict=True):  # fmt: skip
            column.metric(name, f"{value:.0%}", help=f"Of {found.n_shapes} held-out shapes")
        left, right = st.columns([1, 1.3])
        with left:
            show(said_figure(found.said, "What it says for a blue triangle"), "cp_said",
                 key="cp_said_chart")  # fmt: skip
        with right:
            held = _held_examples(trained)
        st.markdown(_said_list(trained, held))


def _held_examples(trained: TrainedCaptioner, n: int = 6) -> list[int]:
    """The first `n` held-out validation scenes, numbered; returns their indices."""
    task = trained.task
    held = task.val_held_out.nonzero()[:, 0][:n].tolist()
    panels = [Panel(task.val_images[i].numpy(), f"#{i}") for i in held]
    show(panels_figure(panels, 3, "Held-out scenes", 120), "cp_held_examples",
         key="cp_held_examples_chart")  # fmt: skip
    return held


def _said_list(trained: TrainedCaptioner, held: list[int]) -> str:
    """What the model says for each of the scenes, beside the true caption (a Markdown list of
    grammar words only)."""
    task, lines = trained.task, []
    for i in held:
        says = caption_image(trained.model, task.val_images[i]).caption or "(nothing)"
        lines.append(f"- **#{i}** says “{says}”; true: “{task.val_captions[i]}”")
    return "\n".join(lines)
