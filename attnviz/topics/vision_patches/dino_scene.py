"""The vision page's real-ViT section as scene views: a photo (bundled, or a person's own) through
the DINOv2 ViT-S/14 (topics.vision_patches.dino), drawn as DINO's class-token maps per head, the
patches holding 60 % of each map, rollout, mean attention distance per layer and head, a chosen
patch as the query, and the artifact test; and the lesson's computed answer (which head finds the
object).

The views are folded (drawn only when named: the section is a lazy expander, `vi_open_dino`), so
the page's other views never load the model.
"""

from __future__ import annotations

import functools
from collections.abc import Collection

import numpy as np
import plotly.graph_objects as go

from attnviz.data.photos import OBJECTS, PHOTOS, PhotosMissing
from attnviz.figures.vision import Panel, distance_figure, panels_figure, patch_grid_figure
from attnviz.figures.vision_real import artifact_scatter
from attnviz.topics.scene import Answer, SceneInputError, Values
from attnviz.topics.views import View
from attnviz.topics.vision_patches import dino_maps as dm
from attnviz.topics.vision_patches.analysis import patch_distances
from attnviz.topics.vision_patches.dino import (
    DinoLook,
    DinoUnavailable,
    bundled_dino,
    look_at,
    photo,
)
from attnviz.topics.vision_patches.params import OWN_PHOTO

OBJECT_HEAD = "dino_object_head"  # the computed answer: the head with most weight on the object


def see(values: Values, image: np.ndarray | None = None) -> DinoLook:
    """The photo of `values` (or `image`, (3, 224, 224) in [0, 1]) through the bundled model;
    SceneInputError with the whole reason when the model or the photos are not installed."""
    try:
        if image is None:
            if values["vi_photo"] not in PHOTOS:
                raise SceneInputError(f"Pick a bundled photo, or upload {OWN_PHOTO} first.")
            image = photo(values["vi_photo"])
        return look_at(bundled_dino(), image)
    except (DinoUnavailable, PhotosMissing) as err:
        raise SceneInputError(str(err)) from None


def object_box(values: Values) -> tuple[str, dm.Box] | None:
    """(what, grid box) of the bundled photo's object; None for a person's own photo."""
    return OBJECTS.get(values["vi_photo"])


def in_grey(image: np.ndarray) -> np.ndarray:
    """A colour picture (3, H, W) in grey, still three channels (Rec. 601 luma): under an
    orange map a photo's own orange (a cat, a red motorcycle) no longer hides the map."""
    luma = np.tensordot(np.array([0.299, 0.587, 0.114], dtype=np.float32), image, axes=1)
    return np.repeat(luma[None], 3, axis=0)  # (3, H, W)


def _outline(values: Values, look: DinoLook):
    found = object_box(values)
    return None if found is None else dm.box_pixels(found[1], look.patch)


def heads_figure(look: DinoLook, values: Values) -> go.Figure:
    """DINO's maps: the photo, then the class token's last-layer attention per head, then their
    mean; the object's box outlined (bundled photos)."""
    maps = dm.class_maps(look.weights, look.grid)  # (H, g, g)
    box = _outline(values, look)
    grey = in_grey(look.image)  # the maps over the photo in grey: orange shows on any photo
    panels = [Panel(look.image, "the photo", box=box)]
    panels += [Panel(grey, f"head {h}", maps[h], box) for h in range(len(maps))]
    panels.append(Panel(grey, "mean of heads", maps.mean(0), box))
    last = len(look.weights) - 1
    title = f"DINO's maps: class token, layer {last}"
    return panels_figure(panels, 4, title, 150)


def mass_figure(look: DinoLook) -> go.Figure:
    """Per head, the fewest patches that hold 60 % of its class-token map (DINO, Fig. 3)."""
    maps = dm.class_maps(look.weights, look.grid)  # (H, g, g)
    kept = dm.mass_mask(maps)  # (H, g, g) bool
    panels = [
        Panel(
            in_grey(look.image),
            f"head {h}",
            kept[h].astype(np.float32),
            detail=f"{kept[h].sum()} patches",
        )
        for h in range(len(maps))
    ]
    title = f"{dm.KEEP * 100:.0f} % of each head's attention"
    return panels_figure(panels, 3, title, 150)


def rollout_figure(look: DinoLook, values: Values) -> go.Figure:
    """Rollout over all 12 layers beside the last layer alone (mean of heads)."""
    box = _outline(values, look)
    last = dm.class_maps(look.weights, look.grid).mean(0)
    grey = in_grey(look.image)
    panels = [
        Panel(grey, "rollout", dm.rollout_map(look.weights, look.grid), box, "(12 layers)"),
        Panel(grey, "last layer", last, box, "(mean of heads)"),
    ]
    return panels_figure(panels, 2, "Rollout vs the last layer", 190)


def distance_view(look: DinoLook) -> go.Figure:
    """Mean attention distance per layer and head, in pixels of the 224-px photo."""
    uniform = float(patch_distances(look.grid, look.patch).mean())
    distance = dm.attention_distance(look.weights, look.grid, look.patch)  # (L, H)
    figure = distance_figure(distance, uniform, "Mean attention distance (px of 224)")
    names = [f"layer {i}" for i in range(len(distance))]  # ticks as numbers: 12 fit a phone
    return figure.update_xaxes(tickvals=names, ticktext=[str(i) for i in range(len(distance))])


def query_figure(look: DinoLook, values: Values) -> go.Figure:
    """The chosen patch as the query in the chosen layer, per head, the patch outlined."""
    layer, patch = int(values["vi_dino_layer"]), int(values["vi_dino_patch"])
    maps = dm.query_maps(look.weights, layer, patch, look.grid)  # (H, g, g)
    r, c = divmod(patch, look.grid)
    box = dm.box_pixels((r, r, c, c), look.patch)
    panels = [Panel(in_grey(look.image), f"head {h}", maps[h], box) for h in range(len(maps))]
    title = f"Patch {patch} (row {r}, col. {c}), layer {layer}"
    return panels_figure(panels, 3, title, 150)


class DinoRead:
    """A photo's look through the model as the section's views read it: the artifact test run
    once for the two views that show it."""

    def __init__(self, look: DinoLook):
        self.look = look

    @functools.cached_property
    def artifacts(self) -> dm.Artifacts:
        return dm.artifacts(self.look.weights, self.look.norms, self.look.grid)


def artifacts_figure(read: DinoRead, values: Values) -> go.Figure:
    """The artifact test: the two measures as maps and the patches past both."""
    look, found = read.look, read.artifacts
    marked = np.zeros(look.grid * look.grid, np.float32)
    marked[list(found.found)] = 1.0
    panels = [
        Panel(in_grey(look.image), "attention", found.share, detail="(× an even share)"),
        Panel(in_grey(look.image), "norm", found.norm, detail="(× the median patch's)"),
        Panel(in_grey(look.image), "both large", marked.reshape(look.grid, look.grid)),
    ]
    return panels_figure(panels, 3, f"Artifact tokens: {len(found.found)} found", 150)


def norms_figure(read: DinoRead, values: Values) -> go.Figure:
    found, limits = read.artifacts, (dm.SHARE_RATIO, dm.NORM_RATIO)
    return artifact_scatter(found.share, found.norm, found.found, limits)


PICK = "Click a patch"  # the pick view's title
# the section's views: folded (a lazy expander), apart from the run; builders read a DinoRead
DINO = (
    View("vi_dino_heads", lambda r, values: heads_figure(r.look, values)),
    View("vi_dino_mass", lambda r, _: mass_figure(r.look)),
    View("vi_dino_rollout", lambda r, values: rollout_figure(r.look, values)),
    View("vi_dino_distance", lambda r, _: distance_view(r.look)),
    View("vi_dino_pick", lambda r, _: patch_grid_figure(r.look.image, r.look.patch, PICK)),
    View("vi_dino_query", lambda r, values: query_figure(r.look, values)),
    View("vi_dino_artifacts", artifacts_figure),
    View("vi_dino_norms", norms_figure),
)


def dino_views(
    look: DinoLook, values: Values, only: Collection[str] | None = None
) -> dict[str, go.Figure]:
    """The real ViT's views of `look` (those named in `only`; None: all of them)."""
    read = DinoRead(look)
    return {v.name: v.build(read, values) for v in DINO if only is None or v.name in only}


def head_shares(look: DinoLook, box: dm.Box) -> np.ndarray:
    """(H,) each head's share of its last-layer class-token map inside `box`."""
    return dm.box_share(dm.class_maps(look.weights, look.grid), box)


def object_answer(look: DinoLook, values: Values) -> dict[str, Answer]:
    """Which head puts the largest share of its DINO map on the bundled photo's object ({} for
    a person's own photo, which has no box)."""
    found = object_box(values)
    if found is None:
        return {}
    shares = head_shares(look, found[1])
    heads = [f"head {h}" for h in range(len(shares))]
    return {OBJECT_HEAD: Answer.of(heads[int(np.argmax(shares))], heads)}


def answers(values: Values) -> dict[str, Answer]:
    """The section's computed answer, while it is open (the page publishes it only then)."""
    if not values["vi_open_dino"] or object_box(values) is None:
        return {}
    return object_answer(see(values), values)
