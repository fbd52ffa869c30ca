"""A local Hugging Face ViT / DeiT folder: loaded offline, its class token's maps equal the
model's own `output_attentions` (the oracle), special tokens are skipped, bad folders get clear
messages. The models are tiny and random, saved here."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import (
    DeiTConfig,
    DeiTForImageClassificationWithTeacher,
    ViTConfig,
    ViTForImageClassification,
    ViTImageProcessor,
)

from attnviz.topics.pretrained.model import bundled_path
from attnviz.topics.vision.pretrained_vit import load_vit, pixel_values, vit_attention

TINY = dict(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=2, intermediate_size=64, num_labels=3)  # fmt: skip
IMAGE = np.random.default_rng(0).random((40, 48, 3)).astype(np.float32)


@pytest.fixture(scope="module")
def vit_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vit")
    torch.manual_seed(0)
    ViTForImageClassification(ViTConfig(**TINY)).save_pretrained(folder)
    ViTImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


def test_class_token_maps_equal_the_models_own_attentions(vit_folder):
    loaded = load_vit(str(vit_folder))
    seen = vit_attention(loaded, IMAGE)
    assert seen.weights.shape == (2, 2, 17, 17) and seen.n_special == 1
    np.testing.assert_allclose(seen.weights.sum(-1), 1, atol=1e-5)
    oracle = ViTForImageClassification.from_pretrained(vit_folder, attn_implementation="eager")
    with torch.no_grad():
        att = oracle(pixel_values=pixel_values(loaded, IMAGE), output_attentions=True).attentions
    expected = torch.stack(att)[:, 0, :, 0, 1:].reshape(2, 2, 4, 4).numpy()
    np.testing.assert_allclose(seen.cls_maps, expected, atol=1e-6)
    assert seen.prediction and seen.prediction.endswith("%)")


def test_distilled_deit_skips_both_special_tokens(tmp_path):
    torch.manual_seed(0)
    DeiTForImageClassificationWithTeacher(DeiTConfig(**TINY)).save_pretrained(tmp_path)
    seen = vit_attention(load_vit(str(tmp_path)), IMAGE)  # no processor: resized by hand
    assert seen.n_special == 2 and seen.weights.shape[-1] == 18
    np.testing.assert_allclose(seen.cls_maps.reshape(2, 2, 16), seen.weights[:, :, 0, 2:])


def test_bad_folders_get_clear_messages(tmp_path):
    with pytest.raises(ValueError, match="no model folder"):
        load_vit(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="no config.json"):
        load_vit(str(tmp_path))
    with pytest.raises(ValueError, match="not a vision transformer"):
        load_vit(str(bundled_path()))
