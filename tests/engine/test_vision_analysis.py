"""The vision page's measurements against oracles written independently: rollout by explicit
loops and multi_dot, attention distance by brute force and by hand, token maps and upsampling by
index loops, saliency against a linear model's weights, receptive fields by hand and by the
support of an input gradient, worst mistakes by hand."""

import itertools
import math

import numpy as np
import pytest
import torch
from torch import nn

import attnviz.core.rollout as core_rollout
import attnviz.topics.pretrained.analysis as pretrained
from attnviz.topics.vision_patches.analysis import (
    class_token_map,
    mean_attention_distance,
    misclassified,
    patch_distances,
    patch_index,
    receptive_field,
    rollout,
    saliency,
    token_map,
    upsample,
)


def random_maps(shape, seed=0) -> np.ndarray:
    a = np.random.default_rng(seed).random(shape)
    return a / a.sum(-1, keepdims=True)


# --- rollout ------------------------------------------------------------------------------


def loop_rollout(attentions: np.ndarray) -> np.ndarray:
    """Abnar & Zuidema 2020 entry by entry: Â_l[i, j] = (mean_h A[l, h, i, j] + [i = j]) / 2,
    divided by its row sum; rollout = multi_dot(Â_L, ..., Â_1)."""
    n_layer, n_head, t, _ = attentions.shape
    mixed = []
    for layer in range(n_layer):
        m = np.zeros((t, t))
        for i, j in itertools.product(range(t), range(t)):
            mean = sum(attentions[layer, h, i, j] for h in range(n_head)) / n_head
            m[i, j] = 0.5 * mean + (0.5 if i == j else 0.0)
        for i in range(t):
            m[i] /= sum(m[i])
        mixed.append(m)
    if n_layer == 1:
        return mixed[0]
    return np.linalg.multi_dot(mixed[::-1])


@pytest.mark.parametrize("layers", [1, 2, 3])
def test_rollout_equals_a_loop_reference(layers):
    att = random_maps((layers, 4, 5, 5), seed=layers)
    np.testing.assert_allclose(rollout(att), loop_rollout(att), atol=1e-12)


def test_rollout_puts_the_last_layer_on_the_left():
    """Two different layers: Â₂Â₁ ≠ Â₁Â₂, so a reversed product fails."""
    att = random_maps((2, 1, 4, 4), seed=7)
    assert not np.allclose(rollout(att), loop_rollout(att[::-1]))


def test_there_is_one_rollout_and_the_pretrained_page_still_exports_it():
    assert rollout is core_rollout.rollout
    assert pretrained.rollout is core_rollout.rollout


# --- distances ----------------------------------------------------------------------------


def test_patch_distances_by_hand():
    """grid 2, patch 4: centres (2,2), (2,6), (6,2), (6,6): sides 4 apart, diagonals 4√2."""
    s = 4 * math.sqrt(2)
    expected = np.array([[0, 4, 4, s], [4, 0, s, 4], [4, s, 0, 4], [s, 4, 4, 0]])
    np.testing.assert_allclose(patch_distances(2, 4), expected, atol=1e-12)


def brute_mean_pairwise(grid: int, patch: int) -> float:
    cells = [(r, c) for r in range(grid) for c in range(grid)]
    total = sum(patch * math.hypot(r1 - r2, c1 - c2) for (r1, c1) in cells for (r2, c2) in cells)
    return total / len(cells) ** 2


def with_class_token(patch_map: np.ndarray, to_class: float) -> np.ndarray:
    """(m, m) patch rows -> (m+1, m+1): every patch query also gives `to_class` to the class
    token (rows then sum to 1 + to_class; renormalising must remove it)."""
    m = patch_map.shape[0]
    full = np.zeros((m + 1, m + 1))
    full[0] = 1.0 / (m + 1)
    full[1:, 0] = to_class
    full[1:, 1:] = patch_map
    return full


@pytest.mark.parametrize(("grid", "patch"), [(2, 4), (3, 2), (4, 2)])
def test_mean_attention_distance_on_synthetic_maps(grid, patch):
    m = grid * grid
    assert mean_attention_distance(np.eye(m), grid, patch, 0) == pytest.approx(0.0)
    uniform = np.full((m, m), 1 / m)
    expected = brute_mean_pairwise(grid, patch)
    assert mean_attention_distance(uniform, grid, patch, 0) == pytest.approx(expected)
    # the same with a class token that takes weight from every row: dropped and renormalised
    full = with_class_token(uniform * 0.25, to_class=0.75)
    assert mean_attention_distance(full, grid, patch, 1) == pytest.approx(expected)


def test_mean_attention_distance_of_a_fixed_offset_is_that_offset():
    """Query (r, c) looks at (r, c+1), the last column at (r, c-1): every distance is one patch;
    all look at (r+1, c+1) mod grid except the wrap-arounds: checked against a hand loop."""
    grid, patch = 4, 3
    m = grid * grid
    side = np.zeros((m, m))
    for r, c in itertools.product(range(grid), range(grid)):
        side[r * grid + c, r * grid + (c + 1 if c < grid - 1 else c - 1)] = 1
    assert mean_attention_distance(side, grid, patch, 0) == pytest.approx(patch)
    diag = np.zeros((m, m))
    dists = []
    for r, c in itertools.product(range(grid), range(grid)):
        r2, c2 = (r + 1) % grid, (c + 1) % grid
        diag[r * grid + c, r2 * grid + c2] = 1
        dists.append(patch * math.hypot(r2 - r, c2 - c))
    assert mean_attention_distance(diag, grid, patch, 0) == pytest.approx(np.mean(dists))


def test_mean_attention_distance_keeps_leading_axes():
    weights = random_maps((2, 3, 17, 17), seed=1)  # (L, H, N, N), grid 4 + class token
    out = mean_attention_distance(weights, 4, 2, 1)
    assert out.shape == (2, 3)
    assert out[1, 2] == pytest.approx(mean_attention_distance(weights[1, 2], 4, 2, 1))


# --- maps ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n_special", [0, 1])
def test_token_map_reads_the_patch_at_row_and_column(n_special):
    grid = 3
    n = grid * grid + n_special
    weights = random_maps((2, n, n), seed=n_special)  # (H, N, N)
    for r0, c0 in [(0, 0), (1, 2), (2, 1)]:
        query = n_special + r0 * grid + c0
        assert patch_index(r0, c0, grid, n_special) == query
        got = token_map(weights, query, grid, n_special)
        assert got.shape == (2, grid, grid)
        for h, r, c in itertools.product(range(2), range(grid), range(grid)):
            assert got[h, r, c] == weights[h, query, n_special + r * grid + c]


def test_class_token_map_is_row_zero_without_its_own_column():
    weights = random_maps((10, 10), seed=3)  # grid 3 + class token
    np.testing.assert_array_equal(class_token_map(weights, 3), weights[0, 1:].reshape(3, 3))


def test_upsample_repeats_each_cell_over_its_patch():
    grid_map = np.arange(2 * 3 * 3).reshape(2, 3, 3)
    out = upsample(grid_map, 2)
    assert out.shape == (2, 6, 6)
    for b, y, x in itertools.product(range(2), range(6), range(6)):
        assert out[b, y, x] == grid_map[b, y // 2, x // 2]


# --- saliency -----------------------------------------------------------------------------


@pytest.mark.parametrize("target", [None, 3])
def test_saliency_of_a_linear_model_is_its_weight_row(target):
    """logit_k = w_k · x + b, so ∂logit_k/∂x = w_k: |w_k| per pixel, max over channels."""
    torch.manual_seed(0)
    c, h, w, k = 3, 4, 5, 6
    model = nn.Sequential(nn.Flatten(), nn.Linear(c * h * w, k))
    image = torch.randn(c, h, w)
    label = int(model(image[None])[0].argmax()) if target is None else target
    row = model[1].weight.detach()[label].numpy().reshape(c, h, w)
    expected = np.abs(row).max(0)
    got = saliency(model, image, target)
    assert got.shape == (h, w)
    np.testing.assert_allclose(got, expected / expected.max(), rtol=1e-6)
    assert all(p.grad is None for p in model.parameters())


# --- receptive fields ---------------------------------------------------------------------


def test_receptive_field_by_hand():
    # conv3 s1: 3; pool2 s2: 3+1=4, j=2; conv3: 4+2·2=8; pool2: 8+1·2=10, j=4; conv3: 10+2·4=18
    assert receptive_field([(3, 1), (2, 2), (3, 1), (2, 2), (3, 1)]) == 18
    assert receptive_field([(5, 2), (3, 2)]) == 5 + 2 * 2
    assert receptive_field([]) == 1


def gradient_support(stack: nn.Module, size: int) -> int:
    """Side of the input region that the centre output unit's gradient reaches (asserts it is a
    full square). Max-pool passes gradient to one pixel per window and ReLU may pass none, so the
    stack is copied with average pools (same kernel and stride), no ReLU and positive weights:
    the geometry is kept and every path then carries a positive gradient."""
    layers = []
    for layer in stack:
        if isinstance(layer, nn.MaxPool2d):
            layers.append(nn.AvgPool2d(layer.kernel_size, layer.stride))
        elif isinstance(layer, nn.Conv2d):
            conv = nn.Conv2d(
                layer.in_channels,
                layer.out_channels,
                layer.kernel_size,
                layer.stride,
                layer.padding,
            )
            nn.init.uniform_(conv.weight, 0.1, 1.0)
            layers.append(conv)
    probe = nn.Sequential(*layers)
    x = torch.randn(1, stack[0].in_channels, size, size, requires_grad=True)
    out = probe(x)  # (1, C', h, w)
    centre = out[0, 0, out.shape[2] // 2, out.shape[3] // 2]
    (grad,) = torch.autograd.grad(centre, x)
    hit = grad[0].abs().sum(0) > 0  # (size, size)
    rows, cols = np.flatnonzero(hit.any(1)), np.flatnonzero(hit.any(0))
    assert hit[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1].all()
    assert rows[0] > 0 and rows[-1] < size - 1, "receptive field clipped by the border"
    assert len(rows) == len(cols)
    return len(rows)


@pytest.mark.parametrize(
    "spec",
    [
        [("conv", 3, 1), ("pool", 2, 2), ("conv", 3, 1), ("pool", 2, 2)],
        [("conv", 5, 2), ("conv", 3, 1), ("pool", 3, 2)],
        [("conv", 3, 1), ("conv", 3, 1), ("pool", 2, 2), ("conv", 3, 1)],
    ],
)
def test_receptive_field_equals_the_support_of_an_input_gradient(spec):
    torch.manual_seed(0)
    layers, channels = [], 2
    for kind, k, s in spec:
        if kind == "conv":
            layers += [nn.Conv2d(channels, 3, k, s), nn.ReLU()]
            channels = 3
        else:
            layers.append(nn.MaxPool2d(k, s))
    stack = nn.Sequential(*layers)
    field = receptive_field([(k, s) for _, k, s in spec])
    assert gradient_support(stack, 64) == field


# --- worst mistakes -----------------------------------------------------------------------


def test_misclassified_lists_confident_mistakes_first():
    logits = np.array(
        [
            [5.0, 0.0, 0.0],  # predicts 0, label 0: right
            [0.0, 1.0, 0.0],  # predicts 1, label 0: wrong, p ≈ 0.58
            [0.0, 0.0, 9.0],  # predicts 2, label 1: wrong, p ≈ 1.00
            [3.0, 0.0, 0.0],  # predicts 0, label 2: wrong, p ≈ 0.91
            [0.0, 4.0, 0.0],  # predicts 1, label 1: right
        ]
    )
    labels = np.array([0, 0, 1, 2, 1])
    assert misclassified(logits, labels, 10) == [2, 3, 1]
    assert misclassified(torch.as_tensor(logits), torch.as_tensor(labels), 2) == [2, 3]
    assert misclassified(logits, np.argmax(logits, -1), 5) == []
