"""The vision page's views of a trained (or untrained) ViT–CNN pair: the image and its patches,
the query's attention per layer and head, rollout, ViT vs CNN, mean attention distance, the
mistakes, the shuffled-patches experiment, and a user's own image. Heavy sections are lazy
expanders (computed only while open; open state in the URL)."""

from __future__ import annotations

import numpy as np
import streamlit as st
import torch

from attnviz.figures.vision import (
    Panel,
    distance_figure,
    distance_timeline,
    panels_figure,
    patch_grid_figure,
)
from attnviz.models.vit import ViTConfig, parameter_count
from attnviz.topics.vision.inference import (
    ALL_PATCHES,
    CLASS_TOKEN,
    ImageLook,
    cnn_receptive_field,
    look,
    mistakes,
    query_choices,
    query_maps,
    rollout_map,
    shuffle_patches,
    shuffled_accuracy,
    uniform_distance,
)
from attnviz.topics.vision.params import TABLE
from attnviz.topics.vision.task import TrainedPair
from attnviz.topics.vision.uploads import read_image
from attnviz.ui.figures import show
from attnviz.ui.layout import lazy_expander
from attnviz.ui.widgets import draw

OWN_IMAGE = "your own image"


def pick_image(pair: TrainedPair) -> tuple[np.ndarray, str, str]:
    """The image the views show (a validation image by number, or an uploaded one) and the
    query, in one row. Returns (image (C, H, W), its caption, the query)."""
    images = pair.images
    source_col, image_col, query_col = st.columns([1, 1.3, 1])
    with query_col:
        query = draw(TABLE, "vi_query", choices=query_choices(pair.vit.config),
                     help="Or click a patch in the numbered image")  # fmt: skip
    source = source_col.radio("image", ["a validation image", OWN_IMAGE], key="vi_src")
    with image_col:
        if source == OWN_IMAGE:
            own = _uploaded(images.size, images.channels, digits=images.channels == 1)
            if own is not None:
                return own, "your image", query
        index = draw(TABLE, "vi_image", high=len(images.val_x) - 1)
    label = images.class_names[int(images.val_y[index])]
    return images.val_x[index].numpy(), f"Image {index} (a {label})", query


def _uploaded(size: int, channels: int, digits: bool) -> np.ndarray | None:
    upload = st.file_uploader(
        "PNG or JPEG, up to 10 MB; resized to the model's input",
        type=["png", "jpg", "jpeg"],
        key="vi_upload",
    )
    if upload is None:
        st.caption("No image uploaded yet: the views show a validation image.")
        return None
    try:
        return read_image(upload.getvalue(), size, channels, digit_style=digits)
    except ValueError as err:
        st.error(f"That file cannot be used: {err}", icon=":material/image_not_supported:")
        return None


def scores_and_answers(pair: TrainedPair, history, look: ImageLook) -> None:
    """One row: both models' validation accuracy (once evaluated; their sizes beneath) and what
    each answers for the shown image (its confidence beneath)."""
    evaluated = history is not None and history.val_metric
    cnn = history.latest_extra("CNN val_metric") if evaluated else None
    accuracy = {
        "ViT": f"{history.val_metric[-1]:.1%}" if evaluated else "–",
        "CNN": "–" if cnn is None else f"{cnn:.1%}",
    }
    names = pair.images.class_names
    columns = st.columns(4)
    when = f"at step {history.eval_step[-1]}" if evaluated else "before training"
    for i, (name, model, probs) in enumerate(
        (("ViT", pair.vit, look.vit_probs), ("CNN", pair.cnn, look.cnn_probs))
    ):
        size = f"{parameter_count(model):,} parameters"
        columns[i].metric(f"{name} accuracy", accuracy[name], size, delta_color="off",
                          delta_arrow="off", help=f"On validation images never trained on, {when}")  # fmt: skip
        best = int(np.argmax(probs))
        columns[2 + i].metric(f"{name} says", names[best], f"{probs[best]:.0%} sure",
                              delta_color="off", delta_arrow="off")  # fmt: skip


def attention_views(
    look: ImageLook, image: np.ndarray, config: ViTConfig, caption: str, query: str
) -> None:
    """The numbered patch grid beside the query's attention over the image, every layer and
    head."""
    maps = query_maps(look.weights, query, config)  # (L, H, g, g)
    box = _query_box(query, config)
    panels = [
        Panel(image, f"layer {layer}, head {head}", maps[layer, head], box)
        for layer in range(config.n_layer)
        for head in range(config.n_head)
    ]
    grid_col, maps_col = st.columns([1, 2.4])
    with grid_col:
        show(patch_grid_figure(image, config.patch, caption), "vi_patches", key="vi_patches_chart",
             on_select=_clicked_patch, selection_mode="points")  # fmt: skip
        extra = " + the class token" if config.n_special else ""
        st.caption(
            f"{config.n_patches} patches of {config.patch}×{config.patch} px = "
            f"{config.n_patches} tokens{extra}, numbered in reading order. Click one to make it "
            "the query."
        )
    with maps_col:
        headers = ([f"head {h}" for h in range(config.n_head)],
                   [f"layer {layer}" for layer in range(config.n_layer)])  # fmt: skip
        figure = panels_figure(panels, config.n_head, f"Where the {query} looks",
                               _side(config.n_head), headers)  # fmt: skip
        show(figure, "vi_heads", key="vi_heads_chart")
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


def _side(heads: int) -> int:
    return {1: 200, 2: 180, 4: 150}.get(heads, 110)


def _query_box(query: str, config: ViTConfig) -> tuple[float, float, float, float] | None:
    """The query patch's outline in pixels (None for the class token or the mean)."""
    if not query.startswith("patch "):
        return None
    r, c = divmod(int(query.split()[-1]), config.grid)
    p = config.patch
    return (c * p - 0.5, r * p - 0.5, (c + 1) * p - 0.5, (r + 1) * p - 0.5)


def vit_vs_cnn(pair: TrainedPair, look: ImageLook, image: np.ndarray, query: str) -> None:
    """Rollout of the ViT (all layers) beside the CNN's saliency and receptive field."""
    config = pair.vit.config
    field = cnn_receptive_field(pair)
    centre = image.shape[-1] / 2 - 0.5
    half = min(field, image.shape[-1]) / 2
    panels = [
        Panel(image, "the image"),
        Panel(image, f"ViT rollout ({query})", rollout_map(look.weights, query, config),
              _query_box(query, config)),
        Panel(image, "CNN saliency |∂ score / ∂ pixel|", look.saliency,
              (centre - half, centre - half, centre + half, centre + half)),
    ]  # fmt: skip
    show(
        panels_figure(panels, 3, "ViT vs CNN: what each model's answer depends on", 190),
        "vi_compare",
        key="vi_compare_chart",
    )
    st.caption(
        f"Rollout multiplies the attention of every layer (heads averaged, plus the residual), so "
        f"it shows which patches reach the {query} in the end. The CNN's saliency is the gradient "
        f"of its winning score with respect to each pixel. Outlined: one unit's receptive field "
        f"in the CNN's last stage, {field}×{field} px: a convolution sees only a neighbourhood "
        "per layer (locality built in), while every attention head may look anywhere from the "
        "first layer on (seed 003: fewer inductive biases, so ViTs need more data)."
    )


def distance_views(
    config: ViTConfig, snapshot: dict, steps: list[int], history: list[dict]
) -> None:
    """Mean attention distance per layer and head at the shown step, and its course."""
    uniform = uniform_distance(config)
    left, right = st.columns(2)
    with left:
        show(
            distance_figure(
                snapshot["distance"],
                uniform,
                "Mean attention distance per head (ViT paper, Fig. 7): how far, in pixels, "
                "a patch looks on average",
            ),
            "vi_distance",
            key="vi_distance_chart",
        )
    with right:
        if len(steps) > 1:
            stacked = np.stack([snap["distance"] for snap in history])  # (S, L, H)
            show(distance_timeline(steps, stacked, uniform), "vi_distance_time",
                 key="vi_distance_time_chart")  # fmt: skip
        else:
            st.caption("Its course over training appears here once the run has snapshots.")
    st.caption(
        f"Averaged over 64 validation images. The dashed line ({uniform:.1f} px) is a head that "
        "spreads its attention evenly over the image; a head far below it looks locally, like a "
        "convolution. In the ViT paper some heads of the lowest layers already look far."
    )


def mistake_gallery(pair: TrainedPair) -> None:
    """The ViT's most confident validation mistakes, each with its class token's rollout."""
    with lazy_expander("The ViT's mistakes, with where it looked", "vi_open_mistakes") as box:
        if not box.open:
            return
        found = mistakes(pair, limit=8)
        if not found:
            st.success("No validation image is misclassified.")
            return
        names, config = pair.images.class_names, pair.vit.config
        query = CLASS_TOKEN if config.n_special else ALL_PATCHES
        panels = []
        for index, truth, guess in found:
            image = pair.images.val_x[index].numpy()
            weights = look(pair, image).weights
            panels.append(Panel(image, f"#{index}: {names[truth]} → {names[guess]}",
                                rollout_map(weights, query, config)))  # fmt: skip
        show(panels_figure(panels, 4, "Misclassified validation images (true → ViT's answer), "
                           "with the rollout of where it looked", 140), "vi_mistakes",
             key="vi_mistakes_chart")  # fmt: skip


def positions_experiment(pair: TrainedPair, image: np.ndarray) -> None:
    """Shuffle the patches: a ViT without positions cannot tell; with positions, it can."""
    label = "Experiment: shuffle the patches (what do positions do?)"
    with lazy_expander(label, "vi_open_shuffle") as box:
        if not box.open:
            return
        config = pair.vit.config
        mixed = shuffle_patches(torch.as_tensor(image)[None], config.patch)[0].numpy()
        show(panels_figure([Panel(image, "as it is"), Panel(mixed, "patches shuffled")], 2,
                           "The same patches in another order", 170), "vi_shuffled",
             key="vi_shuffled_chart")  # fmt: skip
        scores = shuffled_accuracy(pair)
        cols = st.columns(2)
        for column, (name, (plain, shuffled)) in zip(cols, scores.items(), strict=True):
            column.metric(f"{name}: validation accuracy, shuffled", f"{shuffled:.1%}",
                          f"{shuffled - plain:+.1%} vs {plain:.1%} as is")  # fmt: skip
        st.caption(
            f"This ViT's positions: **{config.positional}**, reading the class from the "
            f"**{'class token' if config.n_special else 'mean of the patches'}**. Attention "
            "itself is permutation-equivariant: without positions (and with the mean of the "
            "patches) the ViT gives the same answer for any order of the patches, so shuffling "
            "costs it nothing, but it also cannot use where things are. With positions the "
            "order matters. The CNN sees edges between patches that were never neighbours."
        )


@st.cache_resource(max_entries=2, show_spinner=False)
def _loaded_vit(source: str):
    from attnviz.topics.vision.pretrained_vit import load_vit

    return load_vit(source)


def real_vit(image: np.ndarray) -> None:
    """A local Hugging Face ViT / DeiT / DINO folder: its class token's last-layer attention on
    the image, per head, as in DINO."""
    with lazy_expander(
        "A real ViT: your local checkpoint (ViT, DeiT, DINO)", "vi_open_real"
    ) as box:
        if not box.open:
            return
        st.caption(
            "No pretrained ViT ships with AttnViz (none is in the package index for offline "
            "use), so type the folder of one you have (saved with save_pretrained, or in your "
            "Hugging Face cache). Nothing is downloaded."
        )
        source = st.text_input("model folder", key="vi_real_path", max_chars=1000)
        if not source.strip():
            return
        try:
            loaded = _loaded_vit(source.strip())
            from attnviz.topics.vision.pretrained_vit import vit_attention as real_attention

            rgb = np.repeat(image, 3, axis=0) if image.shape[0] == 1 else image
            seen = real_attention(loaded, np.transpose(rgb, (1, 2, 0)))
        except ValueError as err:
            st.error(str(err), icon=":material/error:")
            return
        last = seen.cls_maps[-1]  # (H, gh, gw)
        panels = [Panel(rgb, f"head {h}", last[h]) for h in range(last.shape[0])]
        show(panels_figure(panels, min(6, len(panels)), f"{loaded.name}: the class token's "
                           "attention in the last layer, per head (as in DINO)", 130),
             "vi_real", key="vi_real_chart")  # fmt: skip
        if seen.prediction:
            st.caption(f"Its answer: {seen.prediction}")
