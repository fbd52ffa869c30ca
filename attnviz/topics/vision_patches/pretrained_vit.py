"""A real Vision Transformer when the user has one: a local Hugging Face ViT, DeiT or DINO folder
(never downloaded), and its class token's attention over an image, per layer and head (DINO's
last-layer picture).

The folder is checked with the pretrained page's rules (`locate`, from the pretrained topic: a
folder inside the allowed roots, or a Hub name in the local cache) and loaded with
`local_files_only=True` and eager attention, so `output_attentions` gives the weights. Messages
quote user text as code spans (`SourceError`), so the page shows them as Markdown with no link
made from what was typed. Only the plain patch-token encoders in VISION_TYPES are accepted (a
Swin's windows or a ConvNeXt's convolutions have no class token to read). Tokens before the
patches (1: [CLS]; 2 for DeiT: [CLS] and the distillation token; more for DINOv2 with
registers) are counted from the model's embeddings, and the grid from the input the folder's
image processor makes, so both are checked against the weights rather than assumed.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
import torch

from attnviz.topics.pretrained.model import Source, SourceError, literal, locate, unusable

# Hugging Face model_type -> the name a person knows; each puts its special tokens first
VISION_TYPES = {
    "vit": "ViT",
    "deit": "DeiT",
    "dinov2": "DINOv2",
    "dinov2_with_registers": "DINOv2 with registers",
    "vit_msn": "ViT-MSN",
    "beit": "BEiT",
    "data2vec-vision": "Data2Vec vision",
}
SPECIAL_TOKENS = ("cls_token", "distillation_token", "register_tokens")  # (1, k, D) parameters


@dataclass
class LoadedViT:
    model: torch.nn.Module
    processor: object | None  # the folder's image processor, or None (resize + normalise 0.5)
    name: str
    patch_size: int
    image_size: tuple[int, int]  # (h, w) of the input the model is given
    n_special: int  # tokens before the patches: [CLS], DeiT's distillation token, registers
    labels: dict[int, str] | None  # id2label of a classifier; None for a bare encoder

    @property
    def grid(self) -> tuple[int, int]:
        return self.image_size[0] // self.patch_size, self.image_size[1] // self.patch_size


@dataclass(frozen=True)
class VitAttention:
    weights: np.ndarray  # (L, H, N, N), N = n_special + gh * gw
    cls_maps: np.ndarray  # (L, H, gh, gw): token 0's attention to the patch tokens
    n_special: int
    grid: tuple[int, int]  # (gh, gw)
    prediction: str | None  # "label (87%)" for a classifier


def read_config(typed: str) -> tuple[Source, object]:
    """The located source and its config (a folder inside the allowed roots, or a Hub name in the
    local cache), never downloaded; SourceError otherwise."""
    from transformers import AutoConfig

    source = locate(typed)
    try:
        return source, AutoConfig.from_pretrained(source.folder, local_files_only=True)
    except Exception as err:  # transformers raises many types; all mean "cannot load this"
        raise unusable(source, err, "read") from None


def model_class(config):
    """The class to load: the folder's own classifier class when it names one, else AutoModel."""
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES

    known = MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES.get(config.model_type, ())
    known = (known,) if isinstance(known, str) else known
    for arch in config.architectures or []:
        if arch in known and hasattr(transformers, arch):
            return getattr(transformers, arch)
    return transformers.AutoModel


def load_vit(typed: str) -> LoadedViT:
    """The vision transformer in a folder inside the allowed roots (or the local Hugging Face
    cache); SourceError with the whole reason otherwise."""
    from transformers import AutoImageProcessor

    source, config = read_config(typed)
    if config.model_type not in VISION_TYPES:
        kind = (config.architectures or [type(config).__name__])[0]
        raise SourceError(
            f"{literal(source.name)} is a {literal(str(kind), 60)}, not a vision transformer "
            f"(ViT, DeiT, DINO); this box reads {', '.join(VISION_TYPES.values())} folders"
        )
    loader = model_class(config)
    folder = source.folder
    try:
        model = loader.from_pretrained(folder, attn_implementation="eager", local_files_only=True)
    except Exception as err:
        raise unusable(source, err, "load") from None
    try:
        processor = AutoImageProcessor.from_pretrained(folder, local_files_only=True)
    except Exception:  # no preprocessor_config.json: resize and normalise by hand
        processor = None
    classifier = loader.__name__ != "AutoModel"  # the folder names its classifier class
    labels = {int(k): v for k, v in config.id2label.items()} if classifier else None
    embeddings = model.base_model.embeddings
    n_special = sum(
        getattr(embeddings, name).shape[1] for name in SPECIAL_TOKENS if hasattr(embeddings, name)
    )
    patch = config.patch_size if isinstance(config.patch_size, int) else config.patch_size[0]
    loaded = LoadedViT(model.eval(), processor, source.label, patch, (0, 0), n_special, labels)
    probe = pixel_values(loaded, np.zeros((64, 64, 3), np.float32))  # (1, 3, h, w)
    loaded.image_size = (int(probe.shape[-2]), int(probe.shape[-1]))
    return loaded


def config_size(config) -> tuple[int, int]:
    size = config.image_size
    return (size, size) if isinstance(size, int) else (int(size[0]), int(size[1]))


def pixel_values(loaded: LoadedViT, image: np.ndarray) -> torch.Tensor:
    """(H, W, 3) (or (H, W) grey), uint8 in [0, 255] or float in [0, 1] -> the model's input
    (1, 3, h, w), made by the folder's image processor at its own size."""
    rgb = np.asarray(image)
    if rgb.ndim == 2:
        rgb = np.repeat(rgb[..., None], 3, axis=-1)
    if rgb.ndim != 3 or rgb.shape[-1] != 3:
        raise ValueError(f"the image has shape {rgb.shape}; the model needs (height, width, 3)")
    scale = 255.0 if np.issubdtype(rgb.dtype, np.integer) else 1.0
    rgb = np.clip(rgb.astype(np.float32) / scale, 0.0, 1.0)  # (H, W, 3) in [0, 1]
    if loaded.processor is not None:
        out = loaded.processor(images=rgb, return_tensors="pt", do_rescale=False)
        return out["pixel_values"]
    x = torch.as_tensor(rgb).permute(2, 0, 1)[None]  # (1, 3, H, W)
    x = torch.nn.functional.interpolate(x, size=config_size(loaded.model.config), mode="bilinear")
    return (x - 0.5) / 0.5


def prediction_of(loaded: LoadedViT, logits: torch.Tensor | None) -> str | None:
    """'label (87%)' from a classifier's logits (1, K); None for a bare encoder."""
    if loaded.labels is None or logits is None:
        return None
    probs = torch.softmax(logits[0].float(), -1)
    best = int(probs.argmax())
    return f"{loaded.labels.get(best, best)} ({float(probs[best]):.0%})"


def vit_attention(loaded: LoadedViT, image: np.ndarray) -> VitAttention:
    """Every layer's attention for one image (H, W, 3), and token 0's maps over the patches."""
    x = pixel_values(loaded, image)  # (1, 3, h, w)
    extra = {}
    if tuple(x.shape[-2:]) != config_size(loaded.model.config) and (
        "interpolate_pos_encoding" in inspect.signature(loaded.model.forward).parameters
    ):
        extra["interpolate_pos_encoding"] = True  # the processor's size is not the config's
    with torch.no_grad():
        out = loaded.model(pixel_values=x, output_attentions=True, **extra)
    if not out.attentions:
        raise SourceError(f"{literal(loaded.name)} returned no attention weights for this image")
    weights = torch.stack(out.attentions)[:, 0].float().numpy()  # (L, H, N, N)
    gh, gw = x.shape[-2] // loaded.patch_size, x.shape[-1] // loaded.patch_size
    if weights.shape[-1] != loaded.n_special + gh * gw:
        raise SourceError(
            f"{literal(loaded.name)} gave {weights.shape[-1]} tokens, not {loaded.n_special} "
            f"special tokens and a {gh}×{gw} grid of patches, so its maps cannot be drawn"
        )
    cls_maps = weights[:, :, 0, loaded.n_special :].reshape(*weights.shape[:2], gh, gw)
    return VitAttention(
        weights, cls_maps, loaded.n_special, (gh, gw), prediction_of(loaded, out.get("logits"))
    )
