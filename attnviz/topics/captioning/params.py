"""Parameters of the Captioning page (seed 002): the scenes, the captioner (CNN regions and a GRU
or transformer decoder), training, the image the views show, and the "Try this" claims (each
tested: tests/engine/test_captioning_try_this.py)."""

from __future__ import annotations

from typing import Any

from attnviz.data.captions import CaptionTaskSpec
from attnviz.models.captioner import GRU_SCORES, CaptionerConfig
from attnviz.topics.captioning.task import PRESETS
from attnviz.topics.params import PageParams, Param
from attnviz.topics.training_params import train_values, training_params
from attnviz.training.trainer import TrainConfig

TRAIN_SIZES = (500, 1000, 2000, 4000)
MAX_LAYERS, HEADS = 3, (1, 2, 4)
MEAN = "all heads (mean)"
HEAD_VIEWS = (
    MEAN,
    *(f"layer {layer}, head {head}" for layer in range(MAX_LAYERS) for head in range(max(HEADS))),
)
VALIDATION, RANDOM, OWN = "a validation image", "a new random scene", "your own image"
SOURCES = (VALIDATION, RANDOM, OWN)
HELD_OUT = (("blue", "triangle"),)


def head_views(layers: int, heads: int) -> list[str]:
    """The choices of the head selector for a transformer of this size (the mean first)."""
    return [MEAN, *(f"layer {a}, head {b}" for a in range(layers) for b in range(heads))]


def preset_values(
    task: CaptionTaskSpec, model: CaptionerConfig, train: TrainConfig
) -> dict[str, Any]:
    """A preset of the engine (task, model, training) as this page's parameter values."""
    return {
        "cp_shapes": task.n_shapes,
        "cp_ntrain": task.n_train,
        "cp_held": bool(task.held_out),
        "cp_decoder": model.decoder,
        "cp_score": model.score,
        "cp_d": model.d_model,
        "cp_layers": model.n_layer,
        "cp_heads": model.n_head,
        **train_values("cp", train),
    }


TRANSFORMER = (("cp_decoder", "transformer"),)
TABLE = PageParams(
    prefix="cp",
    params=(
        Param(
            "cp_shapes",
            "shapes per scene",
            "radio",
            1,
            choices=(1, 2),
            help="One shape: “a large red square”. Two: “a small green circle left of a "
            "large blue square” (the left one first).",
        ),
        Param("cp_ntrain", "training images", "select_slider", 2000, choices=TRAIN_SIZES),
        Param(
            "cp_held",
            "hold out blue triangles",
            "toggle",
            True,
            help="On: no training scene holds a blue triangle; a quarter of the validation "
            "scenes do (the held-out exact match).",
        ),
        Param(
            "cp_decoder",
            "decoder",
            "radio",
            "gru",
            choices=("gru", "transformer"),
            format_func={"gru": "GRU + attention", "transformer": "transformer"}.get,
        ),
        Param(
            "cp_score",
            "attention score (GRU)",
            "selectbox",
            "additive",
            choices=GRU_SCORES,
            shown_when=(("cp_decoder", "gru"),),
            help="additive (Bahdanau), dot or general (Luong): how the GRU's state scores "
            "each region",
        ),
        Param("cp_d", "d_model", "select_slider", 64, choices=(32, 64, 128)),
        Param(
            "cp_layers",
            "layers (transformer)",
            "slider",
            1,
            low=1,
            high=MAX_LAYERS,
            step=1,
            shown_when=TRANSFORMER,
        ),
        Param(
            "cp_heads",
            "heads (transformer)",
            "select_slider",
            2,
            choices=HEADS,
            shown_when=TRANSFORMER,
        ),
        *training_params(
            "cp",
            optimizer="adam",
            lr=3e-3,
            schedule="cosine",
            batch_mode="minibatch",
            batch_size=64,
            steps=200,
        ),
        Param("cp_src", "caption", "selectbox", VALIDATION, choices=SOURCES),
        Param("cp_image", "validation image", "slider", 0, low=0, high=299, step=1, url=False),
        Param(
            "cp_scene_held",
            "with a held-out shape",
            "toggle",
            False,
            shown_when=(("cp_src", RANDOM), ("cp_held", True)),
        ),
        Param(
            "cp_head",
            "attention of",
            "selectbox",
            MEAN,
            choices=HEAD_VIEWS,
            url=False,
            shown_when=TRANSFORMER,
        ),
        # sections built only while open (the page's lazy expanders, keyed by these): in the
        # table so that a link, a preset or a lesson step can open them
        Param("cp_open_held", "Held-out combinations (open)", "toggle", False),
    ),
    presets={name: preset_values(*spec) for name, spec in PRESETS.items()},
)

TRY_THIS: list[str] = [
    "**One shape, GRU + additive attention** → Start: in 200 steps over "
    "95 % of the validation captions are word for word right. Open *Attention on the named "
    "object*: the colour and shape words put over 80 % of their attention on the shape they "
    "name; at step 0 (scrub the timeline back) about 15 %, the shape's share of the regions.",
    "After that run open *Held-out combinations*: the model never saw a blue triangle. It says "
    "“blue” almost every time, but then a shape it has seen in blue (circle or square): each "
    "word was learned, the new pairing was not (held-out exact match near 0 %).",
    "**Two shapes, transformer decoder** → Start: “… left of …” captions pass 95 % exact "
    "match. In *Attention on the named object* (one bar per layer and head) at least one head "
    "puts over half of the colour and shape words' attention on the shape they name.",
    "Show **a new random scene** and switch on *with a held-out shape*: each press of **New "
    "scene** draws a scene never seen before, holding a blue triangle; the caption the model "
    "writes for it is beside the true one.",
]
