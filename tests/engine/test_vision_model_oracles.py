"""The vision models against independent oracles: patchify against a NumPy reshape, the ViT's
queries, keys, weights, attention outputs and logits against its forward written out by hand
from its parameter tensors (LayerNorm, projections with their biases, softmax(QKᵀ/√Dh)), its
output with and without capture, permutation invariance without positions (why positions are
added), and the CNN's receptive field against the support of an input gradient."""

import numpy as np
import pytest
import torch

from attnviz.core.hooks import hook_points, hooks_attached, run_with_cache
from attnviz.core.patches import patch_grid, patchify, unpatchify
from attnviz.models.cnn import CNNConfig, SmallCNN
from attnviz.models.vit import TinyViT, ViTConfig, vit_attention
from attnviz.topics.vision_patches.analysis import receptive_field
from tests.engine.test_vision_analysis import gradient_support
from tests.support import hand_math as hand
from tests.support.hand_math import f64, layer_norm


def numpy_patchify(x: np.ndarray, p: int) -> np.ndarray:
    b, c, h, _ = x.shape
    g = h // p
    return x.reshape(b, c, g, p, g, p).transpose(0, 2, 4, 1, 3, 5).reshape(b, g * g, c * p * p)


@pytest.mark.parametrize(("channels", "size", "patch"), [(1, 8, 2), (3, 12, 4), (2, 6, 3)])
def test_patchify_equals_a_numpy_reshape_and_unpatchify_inverts_it(channels, size, patch):
    images = torch.randn(2, channels, size, size, generator=torch.Generator().manual_seed(size))
    patches = patchify(images, patch)
    np.testing.assert_array_equal(patches.numpy(), numpy_patchify(images.numpy(), patch))
    assert patches.shape == (2, patch_grid(size, patch) ** 2, channels * patch * patch)
    torch.testing.assert_close(unpatchify(patches, patch, channels), images, rtol=0, atol=0)


def test_patch_index_is_row_major_and_features_are_channel_first():
    """Patch (r, c) = pixel block [r·p:(r+1)·p, c·p:(c+1)·p], flattened (C, p, p): by hand."""
    images = torch.arange(2 * 4 * 4.0).reshape(1, 2, 4, 4)  # (B, C, H, W)
    patches = patchify(images, 2)  # (1, 4, 8)
    for r, c in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        block = images[0, :, 2 * r : 2 * r + 2, 2 * c : 2 * c + 2]  # (C, p, p)
        torch.testing.assert_close(patches[0, 2 * r + c], block.flatten())


def make_vit(seed: int = 0, **changes) -> TinyViT:
    torch.manual_seed(seed)
    model = TinyViT(ViTConfig(**changes)).eval()
    with torch.no_grad():  # positions large enough to matter (the default init is 0.02)
        if isinstance(model.pos, torch.nn.Parameter):
            model.pos.normal_(0, 1)
    return model


def images(batch: int = 3, channels: int = 1, size: int = 8, seed: int = 1) -> torch.Tensor:
    return torch.randn(batch, channels, size, size, generator=torch.Generator().manual_seed(seed))


def vit_by_hand(model: TinyViT, x: torch.Tensor) -> tuple[list[dict], np.ndarray]:
    """The ViT's forward written out in float64 from its parameter tensors: patches (a NumPy
    reshape) W_eᵀ + b_e + positions, the class token in front, then per block
    x + attn(LN1(x)), x + MLP(LN2(x)); LN_f, the class token or the mean, the head.
    -> (each layer's attention pieces, logits (B, K))."""
    cfg = model.config
    tokens = numpy_patchify(x.double().numpy(), cfg.patch) @ f64(model.embed.weight).T
    tokens = tokens + f64(model.embed.bias) + f64(model.pos)  # (B, m, D)
    if cfg.pooling == "cls":
        cls = np.broadcast_to(f64(model.cls), (len(tokens), 1, cfg.d_model))
        tokens = np.concatenate([cls, tokens], 1)  # (B, m + 1, D)
    layers = []
    for block in model.blocks:
        h = layer_norm(tokens, block.ln1)
        layers.append(hand.attention(block.attn, h, h, cfg.n_head))
        tokens = tokens + layers[-1]["out"]
        tokens = tokens + hand.mlp(layer_norm(tokens, block.ln2), block.mlp)
    final = layer_norm(tokens, model.ln_f)
    pooled = final[:, 0] if cfg.pooling == "cls" else final.mean(1)
    return layers, hand.linear(pooled, model.head)


@pytest.mark.parametrize(("pooling", "positional"), [("cls", "learned"), ("mean", "sinusoidal")])
def test_attention_is_the_softmax_of_queries_and_keys_projected_by_hand(pooling, positional):
    """Q = LN(x)W_qᵀ + b_q and K likewise, from the layer's own tensors; the hooked q, k and
    weights, each head's weights·V, the attention layer's output (explicit and fused paths)
    and the logits all equal the hand computation."""
    model = hand.unsettle(make_vit(pooling=pooling, positional=positional))
    x = images()
    layers, logits = vit_by_hand(model, x)
    hooked_logits, cache = run_with_cache(model, x)
    names = [f"blocks.{i}.attn" for i in range(model.config.n_layer)]
    fused = hand.module_outputs(model, names, x)  # no hook point attached: the fused kernel
    with hooks_attached(model, {n + ".hook_weights": lambda *_: None for n in names}):
        explicit = hand.module_outputs(model, names, x)
    for name, by_hand in zip(names, layers, strict=True):
        for point in ("q", "k", "weights"):
            np.testing.assert_allclose(cache[f"{name}.hook_{point}"], by_hand[point], atol=1e-5)
        np.testing.assert_allclose(cache[f"{name}.hook_out"], by_hand["heads"], atol=1e-5)
        np.testing.assert_allclose(explicit[name], by_hand["out"], atol=1e-5)
        np.testing.assert_allclose(fused[name], by_hand["out"], atol=1e-5)
    np.testing.assert_allclose(hooked_logits, logits, atol=1e-4)
    np.testing.assert_allclose(fused_logits(model, x), logits, atol=1e-4)


def fused_logits(model: TinyViT, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model(x)


def test_vit_attention_stacks_every_layers_weights():
    model = make_vit(n_layer=3)
    logits, weights = vit_attention(model, images())
    _, cache = run_with_cache(model, images())
    assert weights.shape == (3, 3, 4, 17, 17)  # (L, B, H, N, N)
    for layer in range(3):
        torch.testing.assert_close(weights[layer], cache[f"blocks.{layer}.attn.hook_weights"])
    torch.testing.assert_close(logits, model(images()))


@pytest.mark.parametrize("positional", ["learned", "sinusoidal", "none"])
def test_output_is_the_same_with_capture_on_and_off(positional):
    model = make_vit(positional=positional)
    assert hook_points(model), "the ViT has no hook points"
    with torch.no_grad():
        fused = model(images())  # no hooks: fused SDPA path
    captured, cache = run_with_cache(model, images())  # explicit softmax path
    assert any(name.endswith("hook_weights") for name in cache)
    torch.testing.assert_close(captured, fused, rtol=0, atol=1e-5)


def shuffle_patches(x: torch.Tensor, patch: int, seed: int = 0) -> torch.Tensor:
    patches = patchify(x, patch)  # (B, m, C·p·p)
    order = torch.randperm(patches.shape[1], generator=torch.Generator().manual_seed(seed))
    return unpatchify(patches[:, order], patch, x.shape[1])


@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_without_positions_shuffling_the_patches_changes_nothing(pooling):
    model = make_vit(positional="none", pooling=pooling)
    x = images()
    shuffled = shuffle_patches(x, 2)
    assert not torch.equal(shuffled, x)
    with torch.no_grad():
        torch.testing.assert_close(model(shuffled), model(x), rtol=0, atol=1e-5)


@pytest.mark.parametrize("positional", ["learned", "sinusoidal"])
def test_with_positions_shuffling_the_patches_changes_the_logits(positional):
    model = make_vit(positional=positional, pooling="mean")
    x = images()
    with torch.no_grad():
        change = (model(shuffle_patches(x, 2)) - model(x)).abs().max()
    assert change > 1e-3


@pytest.mark.parametrize("stages", [2, 3])
def test_cnn_receptive_field_equals_the_gradient_support_of_a_centre_unit(stages):
    torch.manual_seed(0)
    model = SmallCNN(CNNConfig(image_size=32, channels=3, width=4, stages=stages))
    layers = model.conv_layers()
    assert len(layers) == 2 * stages  # a conv and a pool per stage
    assert gradient_support(model.features, 96) == receptive_field(layers)
