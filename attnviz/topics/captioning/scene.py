"""The Captioning page as a scene (seed 002): the job Start submits (a CNN region encoder and a
GRU or transformer decoder, trained on generated scenes), the untrained snapshot shown before
Start, and the views of any snapshot on the image shown: the caption word by word with each
word's attention drawn on the image, the words × regions matrix, and (folded sections, asked for
by name) every layer and head, the attention on the named object and what the model says for
held-out combinations.

    seen = captioned(snapshot, values, step=step)   # the snapshot's captioner on the image shown
    figs = figures(seen)                            # = views(snapshot, values, step=step)
    seen.share, seen.held, seen.examples            # the measured numbers (computed once, if asked)
    SCENE.ops.upload(data, size)                    # a person's photo as the image (its ops)
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import plotly.graph_objects as go

from attnviz.data.captions import CaptionTask, CaptionTaskSpec, new_scene
from attnviz.figures.captioning import (
    cross_attention_figure,
    heads_figure,
    said_figure,
    share_figure,
    words_figure,
)
from attnviz.figures.vision import Panel, panels_figure
from attnviz.models.captioner import CaptionerConfig
from attnviz.topics import live
from attnviz.topics.captioning.inference import (
    CaptionLook,
    HeldOutWords,
    ObjectShare,
    caption_image,
    held_out_words,
    object_attention_share,
)
from attnviz.topics.captioning.params import HELD_OUT as HELD_COMBINATIONS
from attnviz.topics.captioning.params import (
    MEAN,
    OWN,
    RANDOM,
    TABLE,
    TRY_THIS,
    head_views,
)
from attnviz.topics.captioning.task import CaptionJobSpec, CaptionSnapshot, TrainedCaptioner
from attnviz.topics.operations import Operations
from attnviz.topics.scene import Job, Scene, SceneInputError, Values
from attnviz.topics.training_params import train_config
from attnviz.topics.views import View, build
from attnviz.topics.vision_patches.uploads import caption_upload

# isort: split
# what the page reads of this topic besides SCENE (limits, types, labels), re-exported so that
# the UI reaches the topic only through its scene (tests/engine/test_layering.py)
from attnviz.topics.captioning.task import BLEU as BLEU
from attnviz.topics.captioning.task import HELD_OUT as HELD_OUT
from attnviz.topics.captioning.task import TOKEN_ACCURACY as TOKEN_ACCURACY
from attnviz.topics.vision_patches.uploads import MAX_UPLOAD_MB as MAX_UPLOAD_MB

EVERY = 50  # steps between evaluations and snapshots
EXAMPLES = 4  # held-out scenes shown with what the model says (one row; 2 × 2 on a 1280×720 stage
# beside the bars, 120 px or more each: 6 took 94 px)


def config(values: Values) -> Job:
    """The job Start submits: the scenes, the captioner and the training form's run."""
    seed, held = int(values["seed"]), values["cp_held"]
    task = CaptionTaskSpec(
        n_shapes=values["cp_shapes"],
        n_train=values["cp_ntrain"],
        seed=seed,
        held_out=HELD_COMBINATIONS if held else (),
        held_out_share=0.25 if held else 0.0,
    )
    model = CaptionerConfig(
        decoder=values["cp_decoder"],
        score=values["cp_score"],
        d_model=values["cp_d"],
        n_layer=values["cp_layers"],
        n_head=values["cp_heads"],
        width=8,
    )
    problems = model.problems() + task.problems()
    if problems:
        raise SceneInputError(" ".join(problems))
    spec = CaptionJobSpec(task, model, values["device"])
    return Job(spec, train_config("cp", values, eval_every=EVERY, snapshot_every=EVERY, seed=seed))


def run(config: Job) -> CaptionSnapshot:
    """The snapshot as the run starts (step 0)."""
    return live.untrained(config.spec)


@dataclass(frozen=True)
class Shown:
    """The image the views caption, what it is, and its true caption (None for an upload)."""

    image: np.ndarray  # (3, S, S) in [0, 1]
    name: str
    truth: str | None


def shown_image(
    task: CaptionTask, values: Values, number: int = 0, own: np.ndarray | None = None
) -> Shown:
    """The image `values` ask for: your own (`own`, when one was given), random scene `number`
    (with a held-out shape if asked and held out), else the validation image `cp_image`."""
    if values["cp_src"] == OWN and own is not None:
        return Shown(own, "your image", None)
    if values["cp_src"] == RANDOM:
        spec = task.spec
        held = values["cp_scene_held"] and bool(spec.held_out)
        image, _, truth = new_scene(spec, number, held=held)
        return Shown(image, f"random scene {number}", truth)
    index = min(int(values["cp_image"]), len(task.val_images) - 1)
    held = " (a held-out combination)" if bool(task.val_held_out[index]) else ""
    truth = task.val_captions[index]
    return Shown(task.val_images[index].numpy(), f"validation image {index}{held}", truth)


def shown_head(values: Values, model: CaptionerConfig) -> str:
    """The head the views show: `cp_head` if this model has it, else the mean."""
    transformer = model.decoder == "transformer"
    choices = head_views(model.n_layer, model.n_head) if transformer else [MEAN]
    return values["cp_head"] if values["cp_head"] in choices else MEAN


@dataclass(frozen=True)
class Captioned:
    """One snapshot's captioner on the image shown: what every view of it draws. The measured
    numbers are computed on first use, once (a folded section's figure and its metrics)."""

    trained: TrainedCaptioner
    shown: Shown
    head: str  # MEAN or "layer l, head h"
    look: CaptionLook
    step: int | None  # the snapshot's training step; None: before Start

    @property
    def when(self) -> str:
        return f"step {self.step or 0}"

    @cached_property
    def share(self) -> ObjectShare:
        """The share of the colour and shape words' attention on the shape they name."""
        return object_attention_share(self.trained.model, self.trained.task)

    @cached_property
    def held(self) -> HeldOutWords | None:
        """What it says for held-out combinations (None: hold-out is off)."""
        task = self.trained.task
        return held_out_words(self.trained.model, task) if task.spec.held_out else None

    @cached_property
    def examples(self) -> list[tuple[int, str]]:
        """The first EXAMPLES held-out validation scenes: (index, the caption it writes)."""
        task, model = self.trained.task, self.trained.model
        held = task.val_held_out.nonzero()[:, 0][:EXAMPLES].tolist()
        return [(i, caption_image(model, task.val_images[i]).caption) for i in held]


def captioned(
    snapshot: CaptionSnapshot,
    values: Values,
    *,
    step: int | None = None,
    shown: Shown | None = None,
) -> Captioned:
    """`snapshot` (the model at `step`, trained with the settings in `values`) captioning the
    image shown (`shown`; None: the one `values` name, random scene 0 or a validation image)."""
    trained = live.restored(config(values).spec, snapshot)
    shown = shown_image(trained.task, values) if shown is None else shown
    look = caption_image(trained.model, shown.image)
    return Captioned(trained, shown, shown_head(values, trained.model.config), look, step)


def chosen(look: CaptionLook, head: str) -> tuple[np.ndarray, np.ndarray]:
    """The shown attention: (T, g, g) maps and (T, R) weights of one head, or their mean."""
    if head == MEAN:
        return look.grid_maps.mean((1, 2)), look.attention.mean((1, 2))
    layer, number = (int(part.split()[-1]) for part in head.split(", "))
    return look.grid_maps[:, layer, number], look.attention[:, layer, number]


def many_heads(seen: Captioned) -> bool:
    """Whether the decoder has more than one attention (a GRU has one: no grid of heads)."""
    return seen.look.attention.shape[1] * seen.look.attention.shape[2] > 1


def _which(seen: Captioned) -> str:
    return "" if seen.head == MEAN else f" ({seen.head})"


def words_view(seen: Captioned, values: Values) -> go.Figure:
    maps, _ = chosen(seen.look, seen.head)  # (T, g, g)
    title = f"Where words look, {seen.when}{_which(seen)}"
    return words_figure(seen.shown.image, seen.look.words, maps, title)


def matrix_view(seen: Captioned, values: Values) -> go.Figure:
    _, weights = chosen(seen.look, seen.head)  # (T, R)
    grid = seen.trained.model.config.grid
    title = f"Cross-attention, words × regions{_which(seen)}"
    return cross_attention_figure(weights, seen.look.words, grid, title)


def heads_view(seen: Captioned, values: Values) -> go.Figure | None:
    """Each layer and head for each word (None: a decoder with one attention, a GRU's)."""
    if not many_heads(seen):
        return None
    title = "Each layer and head (rows) for each word (columns)"
    return heads_figure(seen.shown.image, seen.look.words, seen.look.grid_maps, title)


def share_view(seen: Captioned, values: Values) -> go.Figure:
    title = f"Attention on the named shape, {seen.when}"
    return share_figure(seen.share.per_head, seen.share.area_share, title)


def said_view(seen: Captioned, values: Values) -> go.Figure | None:
    if seen.held is None:  # hold-out is off
        return None
    return said_figure(seen.held.said, "What it says for a blue triangle")


def held_examples_view(seen: Captioned, values: Values) -> go.Figure | None:
    if seen.held is None:
        return None
    task = seen.trained.task
    panels = [Panel(task.val_images[i].numpy(), f"#{i}") for i, _ in seen.examples]
    return panels_figure(panels, EXAMPLES, "Held-out scenes", 120)  # one row (a stage: 2 × 2)


# builders read a Captioned (`captioned`, the scene's prepare: the page hands in the `step` and
# the image `shown`); the folded sections' views are drawn only when named
VIEWS = (
    View("cp_words", words_view, main=True),
    View("cp_matrix", matrix_view),
    View("cp_head_maps", heads_view, folded=True),
    View("cp_share", share_view, folded=True),
    View("cp_said", said_view, section="cp_open_held", folded=True),
    View("cp_held_examples", held_examples_view, section="cp_open_held", folded=True),
)


def figures(seen: Captioned, only: Collection[str] | None = None) -> dict[str, go.Figure]:
    """The views of `seen` (a page that has it already); the folded ones only when named."""
    return build(VIEWS, None, seen, {}, only, {})


SCENE = Scene(
    url="captioning",
    table=TABLE,
    try_this=tuple(TRY_THIS),
    config=config,
    run=run,
    declared=VIEWS,
    prepare=captioned,
    train=live.train,
    ops=Operations(upload=caption_upload),
)
