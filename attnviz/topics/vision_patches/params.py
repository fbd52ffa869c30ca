"""Parameters of the Vision: attention over patches page (seeds 003, 004): data, the ViT (the CNN
beside it is matched to its size), training, what the views show, and the "Try this" claims
(each tested: tests/engine/test_vision_presets.py, the click in tests/browser)."""

from __future__ import annotations

from typing import Any

from attnviz.data.images import DATASETS, N_VAL, SHAPE_TASKS, ImageSetSpec
from attnviz.data.photos import PHOTOS
from attnviz.models.vit import POOLING, VIT_POSITIONAL, ViTConfig
from attnviz.topics.params import PageParams, Param
from attnviz.topics.training_params import train_values, training_params
from attnviz.topics.vision_patches.inference import ALL_PATCHES, CLASS_TOKEN
from attnviz.topics.vision_patches.task import PRESETS
from attnviz.training.trainer import TrainConfig

PATCHES = {"digits": (1, 2, 4), "mnist": (4, 7, 14), "shapes": (4, 8, 16)}  # dividing each size
MAX_PATCHES = 64  # the most patches any choice makes (digits in 1-px patches, shapes in 4-px)
# vi_query's choices: the mean (valid for every ViT) last, so tests' "other value" always fits
TRAIN_SIZES = (300, 600, 1200, 2000, 4000)
OWN_PHOTO = "your own photo"  # the real ViT's photo picker: an upload instead of a bundled photo
DINO_OPEN = (("vi_open_dino", True),)  # the real ViT's settings are drawn inside its section
DINO_SHOWN = (*DINO_OPEN, ("vi_photo", "cat"))  # …the query's once a photo is read (no upload)


def preset_values(data: ImageSetSpec, vit: ViTConfig, train: TrainConfig) -> dict[str, Any]:
    """A preset of the engine (data, ViT, training) as this page's parameter values."""
    return {
        "vi_data": data.name,
        "vi_task": data.shape_task,
        "vi_ntrain": data.n_train,
        "vi_patch": vit.patch,
        "vi_layers": vit.n_layer,
        "vi_heads": vit.n_head,
        "vi_d": vit.d_model,
        "vi_pos": vit.positional,
        "vi_pool": vit.pooling,
        **train_values("vi", train),
    }


TABLE = PageParams(
    prefix="vi",
    params=(
        Param(
            "vi_data",
            "images",
            "selectbox",
            "digits",
            choices=DATASETS,
            help="digits: scikit-learn's 8×8 scans; mnist: real 28×28 MNIST digits (5,000); "
            "shapes: generated 32×32 colour scenes",
        ),
        Param(
            "vi_task",
            "question about the shapes",
            "radio",
            "which",
            choices=SHAPE_TASKS,
            shown_when=(("vi_data", "shapes"),),
            help="which: the shape's kind; where: the circle's quadrant (beside another shape); "
            "count: how many shapes",
        ),
        Param("vi_ntrain", "training images", "select_slider", 1200, choices=TRAIN_SIZES),
        Param(
            "vi_patch",
            "patch size (pixels)",
            "select_slider",
            2,
            choices=(1, 2, 4, 7, 8, 14, 16),
            help="Each p × p patch is one token; the choices divide the image size.",
            shown_when=(("vi_data", "shapes"),),  # its largest patch (16) fits only the shapes
        ),
        Param("vi_layers", "layers", "slider", 2, low=1, high=4, step=1),
        Param("vi_heads", "heads", "select_slider", 4, choices=(1, 2, 4, 8)),
        Param("vi_d", "d_model", "select_slider", 48, choices=(16, 32, 48, 64, 96)),
        Param("vi_pos", "positions", "selectbox", "learned", choices=VIT_POSITIONAL),
        Param(
            "vi_pool",
            "read the class from",
            "radio",
            "cls",
            choices=POOLING,
            format_func={"cls": "class token", "mean": "mean of the patches"}.get,
        ),
        *training_params(
            "vi",
            optimizer="adamw",
            lr=3e-3,
            schedule="cosine",
            batch_mode="minibatch",
            batch_size=64,
            steps=600,
        ),
        Param(
            "vi_image",
            "validation image",
            "slider",
            0,
            low=0,
            high=max(N_VAL.values()) - 1,  # narrowed to the chosen set's size by the page
            step=1,
            url=False,
        ),
        Param(
            "vi_query",
            "query",
            "selectbox",
            CLASS_TOKEN,
            choices=(CLASS_TOKEN, *(f"patch {i}" for i in range(MAX_PATCHES)), ALL_PATCHES),
            url=False,
        ),
        # sections built only while open (the page's lazy expanders, keyed by these): in the
        # table so that a link, a preset or a lesson step can open them
        Param("vi_open_shuffle", "Experiment: shuffle the patches (open)", "toggle", False),
        Param("vi_open_dino", "A real ViT: DINOv2 on photos (open)", "toggle", False),
        # the real ViT (DINOv2 ViT-S/14, 12 layers × 6 heads, 16 × 16 patches of 14 px)
        Param(
            "vi_photo",
            "photo",
            "selectbox",
            "cat",
            choices=(*PHOTOS, OWN_PHOTO),
            shown_when=DINO_OPEN,
            help="scikit-image's sample photos, or your own (squashed to 224 × 224 px)",
        ),
        Param(
            "vi_dino_patch",
            "query patch (or click the photo)",
            "slider",
            103,  # row 6, column 7: between the cat's eyes
            low=0,
            high=255,
            step=1,
            help="Patches are numbered row by row: patch = 16 × row + column",
            shown_when=DINO_SHOWN,
        ),
        Param(
            "vi_dino_layer",
            "layer of the query's maps",
            "slider",
            11,
            low=0,
            high=11,
            step=1,
            shown_when=DINO_SHOWN,
        ),
    ),
    presets={name: preset_values(*spec) for name, spec in PRESETS.items()},
)

TRY_THIS: list[str] = [
    "**Digits 8×8: patches of 2** → Start: the CNN passes 90 % validation accuracy by step 100, "
    "while the ViT is still behind it; the ViT ends above 92 %. A convolution has locality "
    "built in; the ViT must learn it from the data (seed 003: ViTs need more data).",
    "**Shapes: which shape?** → Start: the class token's attention gathers on the shape. After "
    "training its rollout (ViT vs CNN, below) puts more than 1.5× as much weight on the shape's "
    "patches as their share of the image; before training about 1×.",
    "Set positions to **none** and read the class from the **mean of the patches**, train 200 "
    "steps, then open *shuffle the patches*: the ViT scores the same on shuffled images "
    "(attention has no notion of order), but only 20–60 %: a bag of 2×2 patches hardly tells "
    "digits apart. With **learned** positions it scores 30 points more, and shuffling costs it "
    "over 20.",
    "Click a patch of the numbered image: it becomes the query, outlined in every map, and the "
    "maps show where that patch looks.",
    "Open **A real ViT**, photo **cat**: head 2 of the last layer puts over 70 % of the class "
    "token's attention on the cat's eyes and nose (outlined: 39 % of the photo), head 3 under "
    "15 %: it looks at the photo's edges. No label ever told this model what a cat is.",
    "Same section, photo **motorcycle**, the 60 % map: head 2 holds 60 % of its attention in "
    "under 30 patches, all but one on the motorcycle; head 3 needs over 60, most of them off "
    "it. On the **rocket** head 2 still puts over 40 % on the rocket, which covers 9 % of the "
    "photo.",
]
