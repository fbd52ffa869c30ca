"""A local Hugging Face ViT / DeiT / DINO folder: loaded offline, its class token's maps equal the
model's own `output_attentions` (the oracle), special tokens are skipped, bad folders get clear
messages. The models are tiny and random, saved here."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import (
    AutoConfig,
    AutoModel,
    ConvNextConfig,
    ConvNextModel,
    DeiTConfig,
    DeiTForImageClassificationWithTeacher,
    ViTConfig,
    ViTForImageClassification,
    ViTImageProcessor,
)

from attnviz.topics.pretrained.model import bundled_path
from attnviz.topics.pretrained.sources import ENV
from attnviz.topics.vision_patches.pretrained_vit import load_vit, pixel_values, vit_attention

TINY = dict(
    image_size=32,
    patch_size=8,
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=64,
    num_labels=3,
)
IMAGE = np.random.default_rng(0).random((40, 48, 3)).astype(np.float32)


@pytest.fixture(autouse=True)
def temporary_folders_allowed(monkeypatch, tmp_path_factory):
    """pytest's temporary folder (where every folder of these tests is made) is a model root."""
    monkeypatch.setenv(ENV, str(tmp_path_factory.getbasetemp()))


@pytest.fixture(scope="module")
def vit_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vit")
    torch.manual_seed(0)
    ViTForImageClassification(ViTConfig(**TINY)).save_pretrained(folder)
    ViTImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


def oracle_attentions(folder, cls, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The model's own (L, H, N, N) attentions and logits, straight from transformers."""
    model = cls.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        out = model(pixel_values=x, output_attentions=True)
    return torch.stack(out.attentions)[:, 0], out.logits


def test_class_token_maps_equal_the_models_own_attentions(vit_folder):
    loaded = load_vit(str(vit_folder))
    assert (loaded.n_special, loaded.grid, loaded.image_size) == (1, (4, 4), (32, 32))
    assert loaded.labels == {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    seen = vit_attention(loaded, IMAGE)
    assert seen.weights.shape == (2, 2, 17, 17) and seen.n_special == 1 and seen.grid == (4, 4)
    np.testing.assert_allclose(seen.weights.sum(-1), 1, atol=1e-5)
    x = ViTImageProcessor.from_pretrained(vit_folder)(
        images=IMAGE, do_rescale=False, return_tensors="pt"
    )["pixel_values"]
    att, logits = oracle_attentions(vit_folder, ViTForImageClassification, x)
    expected = att[:, :, 0, 1:].reshape(2, 2, 4, 4).numpy()
    np.testing.assert_allclose(seen.cls_maps, expected, atol=1e-6)
    best = int(logits[0].argmax())
    assert seen.prediction == f"LABEL_{best} ({float(logits[0].softmax(-1)[best]):.0%})"


def test_a_uint8_image_is_read_on_the_0_255_scale(vit_folder):
    """A dark uint8 photo (every value <= 1) is still 0..255, not a [0, 1] float image."""
    loaded = load_vit(str(vit_folder))
    dark = np.ones((32, 32, 3), np.uint8)
    np.testing.assert_allclose(
        pixel_values(loaded, dark).numpy(),
        pixel_values(loaded, dark.astype(np.float32) / 255).numpy(),
        atol=1e-6,
    )
    with pytest.raises(ValueError, match=r"shape \(32, 32, 4\); the model needs"):
        vit_attention(loaded, np.zeros((32, 32, 4), np.float32))


def test_distilled_deit_skips_both_special_tokens_and_keeps_its_teacher_head(tmp_path):
    torch.manual_seed(0)
    DeiTForImageClassificationWithTeacher(DeiTConfig(**TINY)).save_pretrained(tmp_path)
    loaded = load_vit(str(tmp_path))  # no processor: resized to 32 and normalised by hand
    assert loaded.processor is None and loaded.n_special == 2
    seen = vit_attention(loaded, IMAGE)
    assert seen.weights.shape[-1] == 18
    x = pixel_values(loaded, IMAGE)
    att, logits = oracle_attentions(tmp_path, DeiTForImageClassificationWithTeacher, x)
    expected = att[:, :, 0, 2:].reshape(2, 2, 4, 4).numpy()  # after [CLS] and [DIST]
    np.testing.assert_allclose(seen.cls_maps, expected, atol=1e-6)
    assert seen.prediction.startswith(f"LABEL_{int(logits[0].argmax())} (")


@pytest.mark.parametrize(
    ("model_type", "extra", "n_special"),
    [("dinov2", {}, 1), ("dinov2_with_registers", {"num_register_tokens": 4}, 5)],
)
def test_dino_encoders_count_their_registers(tmp_path, model_type, extra, n_special):
    """A bare DINOv2 encoder (no labels); with registers, they sit between [CLS] and patches."""
    torch.manual_seed(0)
    config = AutoConfig.for_model(model_type, **TINY, **extra)
    AutoModel.from_config(config).save_pretrained(tmp_path)
    loaded = load_vit(str(tmp_path))
    seen = vit_attention(loaded, IMAGE)
    assert loaded.labels is None and seen.prediction is None
    assert seen.n_special == n_special and seen.weights.shape[-1] == n_special + 16
    np.testing.assert_allclose(seen.cls_maps.reshape(2, 2, 16), seen.weights[:, :, 0, n_special:])


def test_a_processor_at_another_size_gets_its_own_grid(tmp_path):
    """The processor makes 48 × 48 inputs for a model configured at 32: positions are
    interpolated and the grid is 6 × 6, as the processor decides."""
    torch.manual_seed(0)
    ViTForImageClassification(ViTConfig(**TINY)).save_pretrained(tmp_path)
    ViTImageProcessor(size={"height": 48, "width": 48}).save_pretrained(tmp_path)
    seen = vit_attention(load_vit(str(tmp_path)), IMAGE)
    assert seen.grid == (6, 6) and seen.cls_maps.shape == (2, 2, 6, 6)
    np.testing.assert_allclose(seen.weights.sum(-1), 1, atol=1e-5)


def test_bad_folders_get_clear_messages(tmp_path):
    with pytest.raises(ValueError, match="there is no model folder at `"):
        load_vit(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="` has no config.json, so it is not a model"):
        load_vit(str(tmp_path))
    with pytest.raises(ValueError, match="is a `BertModel`, not a vision transformer"):
        load_vit(str(bundled_path()))  # the bundled model's folder is always allowed
    with pytest.raises(ValueError, match="not in the local Hugging Face cache; AttnViz never"):
        load_vit("nobody-here/no-such-vit-model")


def test_a_convnet_with_a_patch_size_is_not_taken_for_a_vit(tmp_path):
    """ConvNeXt's config has patch_size and image_size, but it has no attention to read."""
    ConvNextModel(ConvNextConfig(depths=[1, 1, 1, 1], hidden_sizes=[8, 8, 8, 8])).save_pretrained(
        tmp_path
    )
    with pytest.raises(ValueError, match="is a `ConvNextModel`, not a vision transformer"):
        load_vit(str(tmp_path))
