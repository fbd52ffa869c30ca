"""What the vision page asks of a trained pair (ViT and CNN): one image's attention and
predictions, a query's maps per layer and head, rollout, the CNN's saliency, the mistakes, and
the shuffled-patches experiment (positions on vs off); and `load_vit`, a local pretrained ViT
loaded on call (its module imports transformers only then).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.core.patches import patchify, unpatchify
from attnviz.core.rollout import rollout
from attnviz.models.vit import ViTConfig, vit_attention
from attnviz.topics.vision_patches.analysis import (
    misclassified,
    patch_distances,
    receptive_field,
    saliency,
    token_map,
)
from attnviz.topics.vision_patches.task import TrainedVision, evaluate_model

CLASS_TOKEN = "class token"
ALL_PATCHES = "all patches (mean)"


@dataclass(frozen=True)
class ImageLook:
    """One image through both models."""

    weights: np.ndarray  # (L, H, N, N) the ViT's attention
    vit_probs: np.ndarray  # (K,)
    cnn_probs: np.ndarray  # (K,)
    saliency: np.ndarray  # (H, W) the CNN's gradient saliency, in [0, 1]


def look(pair: TrainedVision, image: np.ndarray) -> ImageLook:
    """image (C, H, W) in [0, 1] -> both models' view of it."""
    x = torch.as_tensor(image, dtype=torch.float32)[None]  # (1, C, H, W)
    logits, weights = vit_attention(pair.vit, x)  # (1, K), (L, 1, H, N, N)
    with torch.no_grad():
        cnn_logits = pair.cnn(x)
    return ImageLook(
        weights[:, 0].numpy(),
        torch.softmax(logits[0], -1).numpy(),
        torch.softmax(cnn_logits[0], -1).numpy(),
        saliency(pair.cnn, x[0]),
    )


def query_choices(config: ViTConfig) -> list[str]:
    """What can be the query: the class token (when there is one), the mean over the patch
    queries, then every patch by its index."""
    first = [CLASS_TOKEN] if config.n_special else []
    return [*first, ALL_PATCHES] + [f"patch {i}" for i in range(config.n_patches)]


def query_maps(weights: np.ndarray, query: str, config: ViTConfig) -> np.ndarray:
    """(L, H, g, g): the chosen query's attention over the patches in every layer and head."""
    g, special = config.grid, config.n_special
    if query == ALL_PATCHES:
        rows = [token_map(weights, special + i, g, special) for i in range(config.n_patches)]
        return np.mean(rows, axis=0)
    index = 0 if query == CLASS_TOKEN else special + int(query.split()[-1])
    return token_map(weights, index, g, special)


def rollout_map(weights: np.ndarray, query: str, config: ViTConfig) -> np.ndarray:
    """(g, g): the query's rollout across all layers (heads averaged), over the patches."""
    rolled = rollout(weights)[None, None]  # (1, 1, N, N)
    return query_maps(rolled, query, config)[0, 0]


def uniform_distance(config: ViTConfig) -> float:
    """The mean attention distance of a head that spreads its attention evenly (px)."""
    return float(patch_distances(config.grid, config.patch).mean())


def cnn_receptive_field(pair: TrainedVision) -> int:
    """The side of the CNN's last stage's receptive field, in pixels."""
    return receptive_field(pair.cnn.conv_layers())


def mistakes(pair: TrainedVision, limit: int = 8) -> list[tuple[int, int, int]]:
    """The ViT's most confident validation mistakes: (image index, true label, predicted)."""
    x, y = pair.images.val_x, pair.images.val_y
    with torch.no_grad():
        logits = pair.vit(x)
    picks = misclassified(logits.numpy(), y.numpy(), limit)
    predicted = logits.argmax(-1)
    return [(int(i), int(y[i]), int(predicted[i])) for i in picks]


def shuffle_patches(images: torch.Tensor, patch: int, seed: int = 0) -> torch.Tensor:
    """The same images with their patches in a random order (one order for all; seeded)."""
    patches = patchify(images, patch)  # (B, m, C·p·p)
    order = torch.randperm(patches.shape[1], generator=torch.Generator().manual_seed(seed))
    return unpatchify(patches[:, order], patch, images.shape[1])


def shuffled_accuracy(pair: TrainedVision, seed: int = 0) -> dict[str, tuple[float, float]]:
    """Validation accuracy of each model on the images as they are and with patches shuffled:
    {"ViT": (as is, shuffled), "CNN": (...)}."""
    x, y = pair.images.val_x, pair.images.val_y
    mixed = shuffle_patches(x, pair.vit.config.patch, seed)
    return {
        name: (evaluate_model(model, x, y)[1], evaluate_model(model, mixed, y)[1])
        for name, model in (("ViT", pair.vit), ("CNN", pair.cnn))
    }


def ink_patches(image: np.ndarray, patch: int, threshold: float = 0.2) -> np.ndarray:
    """(g, g) bool: the patches holding any ink or shape (a pixel brighter than `threshold` on
    the dark background)."""
    bright = image.max(0) > threshold  # (H, W)
    g = image.shape[-1] // patch
    return bright.reshape(g, patch, g, patch).any(axis=(1, 3))


def attention_on_ink(
    weights: np.ndarray, image: np.ndarray, query: str, config: ViTConfig
) -> tuple[float, float]:
    """(share of the query's rollout on the patches holding ink, share of patches holding ink):
    attention that finds the object has the first well above the second."""
    where = ink_patches(image, config.patch)
    rolled = rollout_map(weights, query, config)  # (g, g)
    total = float(rolled.sum()) or 1.0
    return float(rolled[where].sum()) / total, float(where.mean())


def load_vit(typed: str):
    """attnviz.topics.vision_patches.pretrained_vit.load_vit(typed), imported when called: importing
    the vision page loads neither that module nor Hugging Face's."""
    from attnviz.topics.vision_patches.pretrained_vit import load_vit as load

    return load(typed)
