"""A real Vision Transformer when the user has one: a local Hugging Face ViT, DeiT or DINO folder
(never downloaded), and its class token's attention over an image, per layer and head (DINO's
last-layer picture).

The folder is checked with the pretrained page's rules (`check_source`) and loaded with
`local_files_only=True` and eager attention, so `output_attentions` gives the weights. Tokens
before the patches (1: [CLS]; 2 for distilled DeiT: [CLS] and the distillation token) are counted
from the model, not assumed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.topics.pretrained.model import check_source


@dataclass
class LoadedViT:
    model: torch.nn.Module
    processor: object | None  # the folder's image processor, or None (resize + normalise)
    name: str
    image_size: int
    patch_size: int
    labels: dict[int, str] | None  # id2label of a classifier; None for a bare encoder

    @property
    def grid(self) -> int:
        return self.image_size // self.patch_size


@dataclass(frozen=True)
class VitAttention:
    weights: np.ndarray  # (L, H, N, N)
    cls_maps: np.ndarray  # (L, H, g, g): token 0's attention over the patches
    n_special: int
    prediction: str | None  # "label (87 %)" for a classifier


def load_vit(source: str) -> LoadedViT:
    """The vision transformer in a local folder (or the local Hugging Face cache); ValueError
    with the whole reason otherwise."""
    from transformers import (
        AutoConfig,
        AutoImageProcessor,
        AutoModel,
        AutoModelForImageClassification,
    )

    source = check_source(source)
    try:
        config = AutoConfig.from_pretrained(source, local_files_only=True)
    except Exception as err:  # transformers raises many types; all mean "cannot load this"
        raise ValueError(
            f"could not read the model in '{source}': {type(err).__name__}: {err}"
        ) from None
    if not hasattr(config, "patch_size") or not hasattr(config, "image_size"):
        kind = (config.architectures or [type(config).__name__])[0]
        raise ValueError(f"'{source}' holds a {kind}, not a vision transformer (ViT, DeiT, DINO)")
    classifier = bool(getattr(config, "architectures", None)) and any(
        "Classification" in a for a in config.architectures
    )
    loader = AutoModelForImageClassification if classifier else AutoModel
    try:
        model = loader.from_pretrained(source, attn_implementation="eager", local_files_only=True)
    except Exception as err:
        raise ValueError(
            f"could not load the model in '{source}': {type(err).__name__}: {err}"
        ) from None
    try:
        processor = AutoImageProcessor.from_pretrained(source, local_files_only=True)
    except Exception:  # no preprocessor_config.json: resize and normalise by hand
        processor = None
    labels = {int(k): v for k, v in config.id2label.items()} if classifier else None
    size = config.image_size if isinstance(config.image_size, int) else config.image_size[0]
    patch = config.patch_size if isinstance(config.patch_size, int) else config.patch_size[0]
    return LoadedViT(model.eval(), processor, source, size, patch, labels)


def pixel_values(loaded: LoadedViT, image: np.ndarray) -> torch.Tensor:
    """(H, W, 3) in [0, 1] (or uint8) -> the model's input (1, 3, S, S)."""
    rgb = np.asarray(image, dtype=np.float32)
    rgb = rgb / 255.0 if rgb.max() > 1.0 else rgb
    if loaded.processor is not None:
        size = {"height": loaded.image_size, "width": loaded.image_size}
        out = loaded.processor(images=rgb, return_tensors="pt", do_rescale=False, size=size)
        return out["pixel_values"]
    x = torch.as_tensor(rgb).permute(2, 0, 1)[None]  # (1, 3, H, W)
    x = torch.nn.functional.interpolate(x, size=(loaded.image_size,) * 2, mode="bilinear")
    return (x - 0.5) / 0.5


def vit_attention(loaded: LoadedViT, image: np.ndarray) -> VitAttention:
    """Every layer's attention for one image (H, W, 3), and token 0's maps over the patches."""
    with torch.no_grad():
        out = loaded.model(pixel_values=pixel_values(loaded, image), output_attentions=True)
    weights = torch.stack(out.attentions)[:, 0].float().numpy()  # (L, H, N, N)
    g = loaded.grid
    n_special = weights.shape[-1] - g * g
    if n_special < 0:
        raise ValueError(f"{loaded.name}: {weights.shape[-1]} tokens do not cover a {g}×{g} grid")
    cls_maps = weights[:, :, 0, n_special:].reshape(*weights.shape[:2], g, g)
    prediction = None
    if loaded.labels is not None and getattr(out, "logits", None) is not None:
        probs = torch.softmax(out.logits[0], -1)
        best = int(probs.argmax())
        prediction = f"{loaded.labels.get(best, best)} ({float(probs[best]):.0%})"
    return VitAttention(weights, cls_maps, n_special, prediction)
