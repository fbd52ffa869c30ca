"""The vision page's sections around its scene's views (attnviz.topics.vision_patches.scene): the
image and query row (a validation image or an upload), the patches and the query's maps, both
models' scores and answers, ViT vs CNN, mean attention distance, the mistakes, the shuffled-patches
experiment, and a local pretrained ViT. Heavy sections are lazy expanders (computed only while
open; open state in the URL); the mistakes and the shuffled accuracies are kept per server by the
pair's content (TrainedVision.key), so a rerun that changes neither model runs neither again."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from attnviz.models.vit import parameter_count
from attnviz.topics.vision_patches.scene import (
    MAX_UPLOAD_MB,
    SCENE,
    Frame,
    SourceError,
    TrainedVision,
    VisionSnapshot,
    cnn_receptive_field,
    images_and_vit,
    literal,
    query_choices,
    real_vit_views,
    uniform_distance,
)
from attnviz.ui.common.figures import show
from attnviz.ui.common.layout import lazy_expander
from attnviz.ui.common.widgets import draw

OWN_IMAGE = "your own image"


def pick_image(values: dict) -> tuple[dict, np.ndarray | None]:
    """The row choosing what the views show: the source, a validation image by number (or an
    upload) and the query. Returns (values with `vi_image` and `vi_query`, the uploaded image
    (C, H, W) or None)."""
    images, vit = images_and_vit(values)
    source_col, image_col, query_col = st.columns([1, 1.3, 1])
    with query_col:
        query = draw(
            SCENE.table,
            "vi_query",
            choices=query_choices(vit),
            help="Or click a patch in the numbered image",
        )
    source = source_col.radio("image", ["a validation image", OWN_IMAGE], key="vi_src")
    with image_col:
        own = None
        if source == OWN_IMAGE:
            own = _uploaded(images.size, images.channels)
        index = values["vi_image"]
        if own is None:
            index = draw(SCENE.table, "vi_image", high=len(images.val_x) - 1)
    return SCENE.values(values, vi_query=query, vi_image=index), own


def _uploaded(size: int, channels: int) -> np.ndarray | None:
    upload = st.file_uploader(
        f"PNG or JPEG, up to {MAX_UPLOAD_MB} MB; resized to the model's input",
        type=["png", "jpg", "jpeg"],
        key="vi_upload",
        max_upload_size=MAX_UPLOAD_MB,
    )
    if upload is None:
        st.caption("No image uploaded yet: the views show a validation image.")
        return None
    try:
        return SCENE.ops.upload(upload.getvalue(), size, channels)
    except ValueError as err:
        st.error(f"That file cannot be used: {err}", icon=":material/image_not_supported:")
        return None


def scores_and_answers(frame: Frame, history) -> None:
    """One row: both models' validation accuracy (once evaluated) and what each answers for the
    shown image (its confidence beneath); the models' sizes in a caption under the row (as a
    metric's delta, "39,562 parameters" was cut at 1280 px in lecture mode)."""
    evaluated = history is not None and history.val_metric
    cnn = history.latest_extra("CNN val_metric") if evaluated else None
    accuracy = {
        "ViT": f"{history.val_metric[-1]:.1%}" if evaluated else "–",
        "CNN": "–" if cnn is None else f"{cnn:.1%}",
    }
    pair, seen = frame.pair, frame.look
    names = pair.images.class_names
    columns = st.columns(4)
    when = f"at step {history.eval_step[-1]}" if evaluated else "before training"
    sizes = []
    for i, (name, model, probs) in enumerate(
        (("ViT", pair.vit, seen.vit_probs), ("CNN", pair.cnn, seen.cnn_probs))
    ):
        sizes.append(f"{name} {parameter_count(model):,}")
        columns[i].metric(
            f"{name} accuracy",
            accuracy[name],
            help=f"On validation images never trained on, {when}",
        )
        best = int(np.argmax(probs))
        columns[2 + i].metric(
            f"{name} says",
            names[best],
            f"{probs[best]:.0%} sure",
            delta_color="off",
            delta_arrow="off",
        )
    st.caption(f"Parameters: {', '.join(sizes)}.")


def attention_views(figs: dict, frame: Frame) -> None:
    """The numbered patch grid beside the query's attention over the image, every layer and
    head."""
    vit = frame.pair.vit.config
    grid_col, maps_col = st.columns([1, 2.4])
    with grid_col:
        show(
            figs["vi_patches"],
            "vi_patches",
            key="vi_patches_chart",
            on_select=_clicked_patch,
            selection_mode="points",
        )
        extra = " + the class token" if vit.n_special else ""
        st.caption(
            f"{vit.n_patches} patches of {vit.patch}×{vit.patch} px = "
            f"{vit.n_patches} tokens{extra}, numbered in reading order. Click one to make it "
            "the query."
        )
    with maps_col:
        show(figs["vi_head_maps"], "vi_head_maps", key="vi_head_maps_chart")
        st.caption(
            "Rows: layers, columns: heads. Each map is coloured from 0 to its own largest "
            "weight (hover a cell for the weight itself)."
        )


def _clicked_patch() -> None:
    """A click on a patch of the grid makes that patch the query."""
    chart = st.session_state.get("vi_patches_chart") or {}
    points = (chart.get("selection") or {}).get("points") or []
    if points:
        patch = points[0].get("customdata", points[0].get("point_index"))
        if isinstance(patch, list | tuple):
            patch = patch[0]
        st.session_state["vi_query"] = f"patch {int(patch)}"


def vit_vs_cnn(figs: dict, frame: Frame) -> None:
    """Rollout of the ViT (all layers) beside the CNN's saliency and receptive field."""
    show(figs["vi_compare"], "vi_compare", key="vi_compare_chart")
    field = cnn_receptive_field(frame.pair)
    query = frame.query
    st.caption(
        f"Rollout multiplies the attention of every layer (heads averaged, plus the residual), so "
        f"it shows which patches reach the {query} in the end. The CNN's saliency is the gradient "
        "of its winning score with respect to each pixel, |∂ score / ∂ pixel|. Outlined: one "
        f"unit's receptive field in the CNN's last stage, {field}×{field} px: a convolution sees "
        "only a neighbourhood "
        "per layer (locality built in), while every attention head may look anywhere from the "
        "first layer on (seed 003: fewer inductive biases, so ViTs need more data)."
    )


def distance_views(figs: dict, frame: Frame) -> None:
    """Mean attention distance per layer and head at the shown step, and its course."""
    uniform = uniform_distance(frame.pair.vit.config)
    left, right = st.columns(2)
    with left:
        show(figs["vi_distance"], "vi_distance", key="vi_distance_chart")
    with right:
        if "vi_distance_time" in figs:
            show(figs["vi_distance_time"], "vi_distance_time", key="vi_distance_time_chart")
        else:
            st.caption("Its course over training appears here once the run has snapshots.")
    st.caption(
        "How far, in pixels, a query patch looks on average (its attention weights times the "
        f"distances), over 64 validation images. The dashed line ({uniform:.1f} px) is a head that "
        "spreads its attention evenly over the image; a head far below it looks locally, like a "
        "convolution. In the ViT paper some heads of the lowest layers already look far."
    )


@st.cache_resource(max_entries=16, show_spinner=False)
def _mistakes(
    key: tuple, _snapshot: VisionSnapshot, _values: dict, _frame: Frame
) -> dict[str, go.Figure]:
    return SCENE.views(_snapshot, _values, only={"vi_mistakes"}, frame=_frame)


def mistake_gallery(
    snapshot: VisionSnapshot, values: dict, frame: Frame, own: np.ndarray | None
) -> None:
    """The ViT's most confident validation mistakes, each with its class token's rollout: built
    once per pair's content (`frame.pair.key`; it reads nothing else) and shared read-only
    (ui.common.figures.show copies a figure before styling it)."""
    with lazy_expander("The ViT's mistakes, with where it looked", "vi_open_mistakes") as box:
        if not box.open:
            return
        if frame.pair.key:
            figs = _mistakes(frame.pair.key, snapshot, values, frame)
        else:
            figs = SCENE.views(snapshot, values, only={"vi_mistakes"}, image=own, frame=frame)
        if "vi_mistakes" not in figs:
            st.success("No validation image is misclassified.")
            return
        show(figs["vi_mistakes"], "vi_mistakes", key="vi_mistakes_chart")


@st.cache_data(max_entries=32, show_spinner=False)
def _shuffled_accuracy(key: tuple, _pair: TrainedVision) -> dict[str, tuple[float, float]]:
    return SCENE.ops.shuffled_accuracy(_pair)


def cached_shuffled_accuracy(pair: TrainedVision) -> dict[str, tuple[float, float]]:
    """SCENE.ops.shuffled_accuracy(pair), run once per pair's content (`pair.key`: both models'
    weights, the images), not on every rerun: it runs both models over the validation set
    twice."""
    return _shuffled_accuracy(pair.key, pair) if pair.key else SCENE.ops.shuffled_accuracy(pair)


def shuffled_scores(pair: TrainedVision) -> None:
    """Both models' validation accuracy with the patches shuffled, against as they are."""
    scores = cached_shuffled_accuracy(pair)
    cols = st.columns(2)
    for column, (name, (plain, shuffled)) in zip(cols, scores.items(), strict=True):
        column.metric(
            f"{name}: validation accuracy, shuffled",
            f"{shuffled:.1%}",
            f"{shuffled - plain:+.1%} vs {plain:.1%} as is",
        )


def positions_experiment(
    snapshot: VisionSnapshot, values: dict, frame: Frame, own, scored: bool = True
) -> None:
    """Shuffle the patches: a ViT without positions cannot tell; with positions, it can. The
    accuracies (both models over the validation set, twice) only when `scored` (not while a
    run steps)."""
    label = "Experiment: shuffle the patches (what do positions do?)"
    with lazy_expander(label, "vi_open_shuffle") as box:
        if not box.open:
            return
        vit = frame.pair.vit.config
        figs = SCENE.views(snapshot, values, only={"vi_shuffled"}, image=own, frame=frame)
        show(figs["vi_shuffled"], "vi_shuffled", key="vi_shuffled_chart")
        if scored:
            shuffled_scores(frame.pair)
        else:
            st.caption("The accuracies with shuffled patches appear when the run is paused.")
        st.caption(
            f"This ViT's positions: **{vit.positional}**, reading the class from the "
            f"**{'class token' if vit.n_special else 'mean of the patches'}**. Attention "
            "itself is permutation-equivariant: without positions (and with the mean of the "
            "patches) the ViT gives the same answer for any order of the patches, so shuffling "
            "costs it nothing, but it also cannot use where things are. With positions the "
            "order matters. The CNN sees edges between patches that were never neighbours."
        )


@st.cache_resource(max_entries=2, show_spinner=False)
def _loaded_vit(source: str):
    return SCENE.ops.load_vit(source)


def real_vit(image: np.ndarray) -> None:
    """A local Hugging Face ViT / DeiT / DINO folder: its class token's last-layer attention on
    the image, per head, as in DINO."""
    with lazy_expander(
        "A real ViT: your local checkpoint (ViT, DeiT, DINO)", "vi_open_real"
    ) as box:
        if not box.open:
            return
        st.caption(
            "The DINOv2 ViT-S that ships with AttnViz is in *A real ViT: DINOv2 on photos* "
            "below. Here, type the folder of another ViT you have (saved with save_pretrained "
            "inside a folder the server lists in `ATTNVIZ_MODEL_DIRS`), or its Hub name if it is "
            "in the server's Hugging Face cache. Nothing is downloaded."
        )
        source = st.text_input("model folder", key="vi_real_path", max_chars=1000)
        if not source.strip():
            return
        try:
            figs, prediction = real_vit_views(_loaded_vit(source.strip()), image)
        except ValueError as err:  # a SourceError quotes user text as code spans; others whole
            safe = str(err) if isinstance(err, SourceError) else literal(str(err), 300)
            st.error(safe, icon=":material/error:")
            return
        show(figs["vi_real"], "vi_real", key="vi_real_chart")
        if prediction:
            st.caption(f"Its answer: {prediction}")
