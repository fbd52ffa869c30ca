"""The Vision: attention over patches page as a scene (seeds 003, 004): the job Start submits (a
tiny ViT and a size-matched CNN trained side by side on the same images), the untrained snapshot
shown before Start, and the views of any snapshot for one image and one query: the numbered
patches, the query's attention per layer and head, ViT rollout vs CNN saliency, the mean
attention distance (its course given the run's timeline), and (folded sections, asked for by
name) the ViT's mistakes and the shuffled patches; the real ViT's section (DINOv2 ViT-S/14 on
photos: topics.vision_patches.dino_scene), whose views are drawn only when named; a local pretrained
ViT's class-token maps. Its `ops`, the page's other engine calls: upload (a person's image,
shaped as the training images), read_photo (a photo for DINOv2), load_vit (a local ViT),
shuffled_accuracy, and DINOv2's see, dino_views, head_shares and object_answer."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go
import torch

from attnviz.data.images import ImageSet, ImageSetSpec, build_images
from attnviz.figures.vision import (
    Panel,
    distance_figure,
    distance_timeline,
    panels_figure,
    patch_grid_figure,
)
from attnviz.models.vit import ViTConfig
from attnviz.topics import live
from attnviz.topics.operations import Operations
from attnviz.topics.scene import Job, Scene, SceneInputError, Values
from attnviz.topics.training_params import train_config
from attnviz.topics.views import View
from attnviz.topics.vision_patches import dino_scene
from attnviz.topics.vision_patches.inference import (
    ALL_PATCHES,
    CLASS_TOKEN,
    ImageLook,
    load_vit,
    look,
    mistakes,
    query_maps,
    rollout_map,
    shuffle_patches,
    shuffled_accuracy,
)
from attnviz.topics.vision_patches.params import TABLE, TRY_THIS
from attnviz.topics.vision_patches.task import VisionJobSpec, vit_config
from attnviz.topics.vision_patches.uploads import read_image, vision_upload

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.pretrained.sources import SourceError as SourceError
from attnviz.topics.pretrained.sources import literal as literal
from attnviz.topics.vision_patches.dino import NAME as NAME
from attnviz.topics.vision_patches.dino import DinoLook as DinoLook
from attnviz.topics.vision_patches.dino_maps import NORM_RATIO as NORM_RATIO
from attnviz.topics.vision_patches.dino_maps import SHARE_RATIO as SHARE_RATIO
from attnviz.topics.vision_patches.dino_maps import box_share as box_share
from attnviz.topics.vision_patches.dino_scene import object_box as object_box
from attnviz.topics.vision_patches.inference import cnn_receptive_field as cnn_receptive_field
from attnviz.topics.vision_patches.inference import query_choices as query_choices
from attnviz.topics.vision_patches.inference import uniform_distance as uniform_distance
from attnviz.topics.vision_patches.params import OWN_PHOTO as OWN_PHOTO
from attnviz.topics.vision_patches.params import PATCHES as PATCHES
from attnviz.topics.vision_patches.task import TrainedVision as TrainedVision
from attnviz.topics.vision_patches.task import VisionSnapshot as VisionSnapshot
from attnviz.topics.vision_patches.uploads import MAX_UPLOAD_MB as MAX_UPLOAD_MB

EVERY = 25  # steps between evaluations and snapshots
# what the page redraws while a run steps: every view a snapshot draws cheaply (the mistakes
# and the shuffled accuracies run both models over the validation set: they wait for a pause)
LIVE_VIEWS = ("vi_patches", "vi_head_maps", "vi_compare", "vi_distance", "vi_distance_time")
DISTANCE_TITLE = "Mean attention distance per head, px (ViT paper, Fig. 7)"


def config(values: Values) -> Job:
    """The job Start submits: the images, the ViT (the CNN is matched to it) and the run."""
    seed = int(values["seed"])
    data = ImageSetSpec(
        values["vi_data"], shape_task=values["vi_task"], n_train=values["vi_ntrain"], seed=seed
    )
    d = values["vi_d"]
    vit = ViTConfig(
        patch=values["vi_patch"],
        n_layer=values["vi_layers"],
        n_head=values["vi_heads"],
        d_model=d,
        d_ff=2 * d,
        positional=values["vi_pos"],
        pooling=values["vi_pool"],
    )
    problems = data.problems() or vit_config(build_images(data), vit).problems()
    if problems:
        raise SceneInputError(f"These settings cannot be trained: {'; '.join(problems)}.")
    spec = VisionJobSpec(data, vit, values["device"])
    return Job(spec, train_config("vi", values, eval_every=EVERY, snapshot_every=EVERY, seed=seed))


def run(config: Job) -> VisionSnapshot:
    """The snapshot of both models as the run starts (step 0)."""
    return live.untrained(config.spec)


def images_and_vit(values: Values) -> tuple[ImageSet, ViTConfig]:
    """The images of the settings and the ViT's config completed from them."""
    spec = config(values).spec
    images = build_images(spec.data)
    return images, vit_config(images, spec.vit)


def fit_query(query: str, vit: ViTConfig) -> str:
    """`query` if this ViT has it, else what the query box falls back to (as its widget does)."""
    choices = query_choices(vit)
    if query in choices:
        return query
    return CLASS_TOKEN if CLASS_TOKEN in choices else choices[0]


@dataclass(frozen=True)
class Frame:
    """One snapshot read for the views: both models, the image shown and the query."""

    pair: TrainedVision
    image: np.ndarray  # (C, H, W) in [0, 1]
    caption: str
    query: str
    look: ImageLook


def read(snapshot: VisionSnapshot, values: Values, image: np.ndarray | None = None) -> Frame:
    """Both models of `snapshot` on the validation image `vi_image`, or on `image` (a person's
    own, (C, H, W) in [0, 1], shaped as the training images)."""
    pair = live.restored(config(values).spec, snapshot)
    query = fit_query(values["vi_query"], pair.vit.config)
    caption = "your image"
    if image is None:
        images = pair.images
        index = min(int(values["vi_image"]), len(images.val_x) - 1)
        label = images.class_names[int(images.val_y[index])]
        image, caption = images.val_x[index].numpy(), f"Image {index} (a {label})"
    return Frame(pair, image, caption, query, look(pair, image))


def query_box(query: str, vit: ViTConfig) -> tuple[float, float, float, float] | None:
    """The query patch's outline in pixels (None for the class token or the mean)."""
    if not query.startswith("patch "):
        return None
    r, c = divmod(int(query.split()[-1]), vit.grid)
    p = vit.patch
    return (c * p - 0.5, r * p - 0.5, (c + 1) * p - 0.5, (r + 1) * p - 0.5)


def heads_figure(frame: Frame) -> go.Figure:
    """The query's attention over the image, every layer (rows) and head (columns)."""
    vit, query, image = frame.pair.vit.config, frame.query, frame.image
    maps = query_maps(frame.look.weights, query, vit)  # (L, H, g, g)
    box = query_box(query, vit)
    panels = [
        Panel(image, f"layer {layer}, head {head}", maps[layer, head], box)
        for layer in range(vit.n_layer)
        for head in range(vit.n_head)
    ]
    headers = (
        [f"head {h}" for h in range(vit.n_head)],
        [f"layer {layer}" for layer in range(vit.n_layer)],
    )
    # the grid shares a laptop's stage column with the image: four maps a row are about 75 px
    # (planned at 150, each row was drawn 186 px tall, past a 1280×720 first screen: issue 54)
    side = {1: 200, 2: 180, 4: 86}.get(vit.n_head, 80)
    return panels_figure(panels, vit.n_head, f"Where the {query} looks", side, headers)


def compare_figure(frame: Frame) -> go.Figure:
    """Rollout of the ViT (all layers) beside the CNN's saliency and receptive field."""
    vit, query, image = frame.pair.vit.config, frame.query, frame.image
    field = cnn_receptive_field(frame.pair)
    centre = image.shape[-1] / 2 - 0.5
    half = min(field, image.shape[-1]) / 2
    panels = [
        Panel(image, "the image"),
        Panel(
            image,
            "ViT rollout",
            rollout_map(frame.look.weights, query, vit),
            query_box(query, vit),
            f"({query})",
        ),
        Panel(
            image,
            "CNN saliency",
            frame.look.saliency,
            (centre - half, centre - half, centre + half, centre + half),
            "|∂ score / ∂ pixel|",
        ),
    ]  # (short names: three panels share a phone's width; the rest is in the hover)
    return panels_figure(panels, 3, "ViT vs CNN: what each model's answer depends on", 190)


def distance_view(d: Drawn, values: Values) -> go.Figure:
    """Mean attention distance per layer and head at this snapshot (step 0's before a run)."""
    uniform = uniform_distance(d.frame.pair.vit.config)
    return distance_figure(d.snapshot.distance, uniform, DISTANCE_TITLE)


def distance_time_view(d: Drawn, values: Values) -> go.Figure | None:
    """The distance's course over the run's snapshots (None: fewer than two)."""
    if d.timeline is None or len(d.timeline) < 2:
        return None
    steps = [step for step, _ in d.timeline]
    stacked = np.stack([snap.distance for _, snap in d.timeline])  # (S, L, H)
    return distance_timeline(steps, stacked, uniform_distance(d.frame.pair.vit.config))


def mistakes_figure(pair: TrainedVision) -> go.Figure | None:
    """The ViT's most confident validation mistakes, each with its rollout (None: no mistake)."""
    found = mistakes(pair, limit=8)
    if not found:
        return None
    names, vit = pair.images.class_names, pair.vit.config
    query = CLASS_TOKEN if vit.n_special else ALL_PATCHES
    panels = []
    for index, truth, guess in found:
        image = pair.images.val_x[index].numpy()
        weights = look(pair, image).weights
        panels.append(
            Panel(
                image,
                f"#{index}: {names[truth]} → {names[guess]}",
                rollout_map(weights, query, vit),
            )
        )
    title = (
        "Misclassified validation images (true → ViT's answer), with the rollout of where it looked"
    )
    return panels_figure(panels, 4, title, 140)


def shuffled_figure(frame: Frame) -> go.Figure:
    """The image as it is beside the same patches in another (seeded) order."""
    image = frame.image
    mixed = shuffle_patches(torch.as_tensor(image)[None], frame.pair.vit.config.patch)[0].numpy()
    panels = [Panel(image, "as it is"), Panel(mixed, "patches shuffled")]
    return panels_figure(panels, 2, "The same patches in another order", 170)


class Drawn:
    """What the views of one call read: the snapshot, read once for the image and query in
    `values` (or a person's own `image`, (C, H, W) in [0, 1]) when a view needs it, unless the
    caller has read it (`frame`: `read` of the same three); the run's `timeline` ((step,
    snapshot) pairs) for the mean attention distance; the real ViT's look at the photo, once,
    when its section's views are asked for."""

    def __init__(
        self,
        snapshot: VisionSnapshot,
        values: Values,
        *,
        image: np.ndarray | None = None,
        timeline: Sequence[tuple[int, dict]] | None = None,
        frame: Frame | None = None,
    ):
        self.snapshot, self.values, self.image, self.timeline = snapshot, values, image, timeline
        self._read = frame

    @functools.cached_property
    def frame(self) -> Frame:
        return self._read or read(self.snapshot, self.values, self.image)

    @functools.cached_property
    def dino(self) -> dino_scene.DinoRead:
        return dino_scene.DinoRead(dino_scene.see(self.values))


def patches_view(d: Drawn, values: Values) -> go.Figure:
    return patch_grid_figure(d.frame.image, d.frame.pair.vit.config.patch, d.frame.caption)


def _real(view: View) -> View:
    """A view of the real ViT's section (folded, apart from the run), drawn from `Drawn.dino`."""
    build = view.build
    return replace(
        view,
        build=lambda d, values: build(d.dino, values),
        section="vi_open_dino",
        folded=True,
        apart=True,
    )


VIEWS = (
    View("vi_patches", patches_view),
    View("vi_head_maps", lambda d, _: heads_figure(d.frame), main=True),
    View("vi_compare", lambda d, _: compare_figure(d.frame)),
    View("vi_distance", distance_view),
    View("vi_distance_time", distance_time_view, run_only=True),
    View("vi_mistakes", lambda d, _: mistakes_figure(d.frame.pair), folded=True),
    View(
        "vi_shuffled", lambda d, _: shuffled_figure(d.frame), section="vi_open_shuffle", folded=True
    ),
    *(_real(view) for view in dino_scene.DINO),
)


def real_vit_views(loaded, image: np.ndarray) -> tuple[dict[str, go.Figure], str]:
    """A local pretrained ViT (attnviz.topics.vision_patches.pretrained_vit.load_vit) on `image`
    (C, H, W): its class token's last-layer attention per head, as in DINO, and its answer ("" if
    it has no classifier). ValueError when the model cannot read the image."""
    from attnviz.topics.vision_patches.pretrained_vit import vit_attention as real_attention

    rgb = np.repeat(image, 3, axis=0) if image.shape[0] == 1 else image
    seen = real_attention(loaded, np.transpose(rgb, (1, 2, 0)))
    last = seen.cls_maps[-1]  # (H, gh, gw)
    panels = [Panel(rgb, f"head {h}", last[h]) for h in range(last.shape[0])]
    title = f"{loaded.name}: the class token's attention in the last layer, per head (as in DINO)"
    figure = panels_figure(panels, min(6, len(panels)), title, 130)
    return {"vi_real": figure}, seen.prediction or ""


SCENE = Scene(
    url="vision-patches",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=Drawn,
    answers=lambda _result, values: dino_scene.answers(values),
    answer_names=(dino_scene.OBJECT_HEAD,),
    train=live.train,
    ops=Operations(
        upload=vision_upload,
        read_photo=read_image,
        load_vit=load_vit,
        shuffled_accuracy=shuffled_accuracy,
        see=dino_scene.see,
        dino_views=dino_scene.dino_views,
        head_shares=dino_scene.head_shares,
        object_answer=dino_scene.object_answer,
    ),
)
