"""Page 6: a tiny ViT and a small CNN learn the same images side by side; where does each
patch look? (seeds 003, 004)."""

import streamlit as st

from attnviz.topics.vision_patches.scene import LIVE_VIEWS, PATCHES, SCENE, images_and_vit, read
from attnviz.ui.common import layout
from attnviz.ui.common.widgets import draw
from attnviz.ui.parts.vision_patches import (
    attention_views,
    distance_views,
    mistake_gallery,
    pick_image,
    positions_experiment,
    real_vit,
    scores_and_answers,
    vit_vs_cnn,
)
from attnviz.ui.parts.vision_patches_real import real_dino
from attnviz.ui.training.page import TrainingPage
from attnviz.ui.training.run_view import LiveRun

TABLE = SCENE.table

page = TrainingPage(
    SCENE,
    "Vision: attention over patches",
    "A Vision Transformer cuts an image into p × p patches, flattens each into one token (seed "
    "004: z is m patches × d), adds positions and a class token, and lets every patch attend to "
    "every other. A small CNN of about the same size learns the same images in the same run. "
    "Press **Start** and watch where the class token looks, head by head, as both learn.",
    ["Images", "ViT"],
)
data_col, model_col = page.groups
with data_col:
    chosen = {"vi_data": draw(TABLE, "vi_data")}
    chosen["vi_task"] = draw(TABLE, "vi_task", disabled=chosen["vi_data"] != "shapes")
    chosen["vi_ntrain"] = draw(TABLE, "vi_ntrain")
with model_col:
    chosen["vi_patch"] = draw(TABLE, "vi_patch", choices=PATCHES[chosen["vi_data"]])
    model_keys = ("vi_layers", "vi_heads", "vi_d", "vi_pos", "vi_pool")
    chosen |= {key: draw(TABLE, key) for key in model_keys}
values = page.settle(chosen)
untrained = page.untrained()  # step 0
st.caption(images_and_vit(values)[0].notes)


def draw_live(run: LiveRun) -> None:
    """The chosen image and query through the shown snapshot (step 0 before a run): the maps,
    both models' scores and answers, ViT vs CNN and the mean attention distance (redrawn with
    every snapshot of a run), the shuffled patches (their accuracies once the run is paused or
    over); the mistakes and a local ViT once it is."""
    state = run.state
    snapshot = run.snapshot if run.snapshot is not None else untrained
    active = state is not None and state.active
    shown, own = pick_image(values)
    timeline = state.snapshots if run.snapshot is not None else None
    frame = read(snapshot, shown, own)
    only = LIVE_VIEWS if active else None
    figs = SCENE.views(snapshot, shown, only, image=own, timeline=timeline, frame=frame)
    attention_views(figs, frame)
    scores_and_answers(frame, state.history if run.snapshot is not None else None)  # the run's
    vit_vs_cnn(figs, frame)
    distance_views(figs, frame)
    if not active:
        mistake_gallery(snapshot, shown, frame, own)
    positions_experiment(snapshot, shown, frame, own, scored=not active)
    if not active:
        real_vit(frame.image)


page.panel(draw_live, model_name="ViT")
real_dino()  # the real ViT (DINOv2 on photos): its own folded section, apart from the run

layout.try_this(SCENE.try_this)
