"""Page 6: a tiny ViT and a small CNN learn the same images side by side; where does each
patch look? (seeds 003, 004)."""

import streamlit as st

from attnviz.data.images import ImageSetSpec, build_images
from attnviz.models.vit import ViTConfig
from attnviz.topics.training_params import train_config
from attnviz.topics.vision.inference import look
from attnviz.topics.vision.params import PATCHES, TABLE, TRY_THIS
from attnviz.topics.vision.task import VisionJobSpec, restore, untrained, vit_config
from attnviz.ui import layout
from attnviz.ui.settings import settings
from attnviz.ui.training_form import training_form
from attnviz.ui.training_panel import LiveRun, training_panel
from attnviz.ui.vision_sections import (
    attention_views,
    distance_views,
    mistake_gallery,
    pick_image,
    positions_experiment,
    real_vit,
    scores_and_answers,
    vit_vs_cnn,
)
from attnviz.ui.widgets import draw, preset_buttons, reset_button

layout.intro(
    "Vision: attention over patches",
    "A Vision Transformer cuts an image into p × p patches, flattens each into one token (seed "
    "004: z is m patches × d), adds positions and a class token, and lets every patch attend to "
    "every other. A small CNN of about the same size learns the same images in the same run. "
    "Press **Start** and watch where the class token looks, head by head, as both learn.",
)
preset_buttons(TABLE, per_row=2)
reset_button(TABLE)
places = layout.training_layout(["Images", "ViT", "Training"])
data_col, model_col, train_col = places.groups
with data_col:
    data_name = draw(TABLE, "vi_data")
    shape_task = draw(TABLE, "vi_task", disabled=data_name != "shapes")
    n_train = draw(TABLE, "vi_ntrain")
with model_col:
    patch = draw(TABLE, "vi_patch", choices=PATCHES[data_name])
    layers = draw(TABLE, "vi_layers")
    heads = draw(TABLE, "vi_heads")
    d_model = draw(TABLE, "vi_d")
    positional = draw(TABLE, "vi_pos")
    pooling = draw(TABLE, "vi_pool")
with train_col:
    form = training_form(TABLE)

seed = settings().seed
data = ImageSetSpec(data_name, shape_task=shape_task, n_train=n_train, seed=seed)
vit = ViTConfig(patch=patch, n_layer=layers, n_head=heads, d_model=d_model, d_ff=2 * d_model,
                positional=positional, pooling=pooling)  # fmt: skip
spec = VisionJobSpec(data, vit, settings().device)
config = train_config(TABLE.prefix, form, eval_every=25, snapshot_every=25, seed=seed)
images = build_images(data)
st.caption(images.notes)


def draw_live(run: LiveRun) -> None:
    """The chosen image and query through the shown snapshot (step 0 before a run): the maps,
    then both models' scores and answers; once the run is paused or over, the comparisons and
    experiments."""
    state = run.state
    snapshot = run.snapshot if run.snapshot is not None else untrained(run.spec)
    pair = restore(run.spec, snapshot)
    image, caption, query = pick_image(pair)
    seen = look(pair, image)
    attention_views(seen, image, pair.vit.config, caption, query)
    if run.snapshot is None:
        st.caption("Before training (step 0): both models are freshly initialised.")
    scores_and_answers(pair, state.history if state is not None else None, seen)
    if state is not None and state.active:
        return
    vit_vs_cnn(pair, seen, image, query)
    if run.snapshot is not None:
        snaps = [snap for _, snap in state.snapshots]
        distance_views(pair.vit.config, snapshot, [s for s, _ in state.snapshots], snaps)
    mistake_gallery(pair)
    positions_experiment(pair, image)
    real_vit(image)


with places.stage:
    training_panel(
        "vi", spec, config, draw_live, problems=vit_config(images, vit).problems(), buttons_in=places.buttons,
        model_name="ViT",
    )  # fmt: skip

layout.try_this(TRY_THIS)
