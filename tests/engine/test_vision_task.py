"""The vision run: both models learn from the same batches, the reported loss is the ViT's, the
CNN's numbers reach the curves, snapshots restore both models, and the views' math."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch
import torch.nn.functional as F

from attnviz.data.images import ImageSetSpec
from attnviz.figures.training import companions, curves_figure
from attnviz.models.vit import ViTConfig
from attnviz.topics.vision_patches.inference import (
    ALL_PATCHES,
    CLASS_TOKEN,
    look,
    query_choices,
    query_maps,
    shuffle_patches,
)
from attnviz.topics.vision_patches.task import COMPANION, VisionJobSpec, cnn_config, vit_config
from attnviz.training.trainer import TrainConfig, Trainer

SPEC = VisionJobSpec(ImageSetSpec("digits", n_train=300), ViTConfig(patch=2, d_model=32, n_head=2))
TRAIN = TrainConfig(
    optimizer="adamw", lr=3e-3, batch_mode="minibatch", steps=20, eval_every=10, snapshot_every=10
)


def test_the_reported_loss_is_the_vits_and_the_gradient_reaches_both_models():
    trainable = SPEC.build()
    batch = torch.arange(16)
    loss = trainable.loss(batch)
    x, y = trainable.train_x[batch], trainable.train_y[batch]
    trainable.vit.eval(), trainable.cnn.eval()  # no dropout in these configs: same values
    assert torch.isclose(loss, F.cross_entropy(trainable.vit(x), y), atol=1e-6)
    loss.backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in trainable.cnn.parameters())
    assert trainable.vit.embed.weight.grad.abs().sum() > 0


def test_the_cnn_is_matched_to_the_vits_size():
    trainable = SPEC.build()
    vit_n = sum(p.numel() for p in trainable.vit.parameters())
    cnn_n = sum(p.numel() for p in trainable.cnn.parameters())
    assert 0.6 < cnn_n / vit_n < 1.5, (vit_n, cnn_n)


def test_training_scores_both_models_and_snapshots_restore_them():
    trainer = Trainer(SPEC.build(), TRAIN).run()
    assert trainer.status.value == "done"
    names = companions(trainer.history)
    assert names == [COMPANION]
    fig = curves_figure(trainer.history, "accuracy", model_name="ViT").to_dict()
    legend = [t["name"] for t in fig["data"]]
    assert "CNN validation accuracy" in legend and "ViT validation accuracy" in legend
    step, snap = trainer.snapshots[-1]
    pair = SPEC.restore(snap)
    assert torch.equal(pair.vit.embed.weight, torch.as_tensor(snap.vit["embed.weight"]))
    trained = trainer.task
    x = trained.val_x[:8]
    trained.vit.eval()
    with torch.no_grad():
        assert torch.allclose(pair.vit(x), trained.vit(x), atol=1e-5)
        assert torch.allclose(pair.cnn(x), trained.cnn(x), atol=1e-5)
    cfg = vit_config(pair.images, SPEC.vit)
    assert snap.distance.shape == (cfg.n_layer, cfg.n_head)
    assert np.all(snap.distance >= 0) and np.all(snap.distance <= cfg.image_size * 1.5)


def test_query_maps_pick_the_rows_of_the_chosen_query():
    pair = SPEC.restore(SPEC.build().snapshot())
    cfg = pair.vit.config
    image = pair.images.val_x[0].numpy()
    seen = look(pair, image)
    assert query_choices(cfg)[:3] == [CLASS_TOKEN, ALL_PATCHES, "patch 0"]
    cls = query_maps(seen.weights, CLASS_TOKEN, cfg)  # (L, H, g, g)
    np.testing.assert_allclose(cls.reshape(cfg.n_layer, cfg.n_head, -1), seen.weights[:, :, 0, 1:])
    p5 = query_maps(seen.weights, "patch 5", cfg)
    np.testing.assert_allclose(p5.reshape(cfg.n_layer, cfg.n_head, -1), seen.weights[:, :, 6, 1:])
    mean_cfg = replace(SPEC, vit=replace(SPEC.vit, pooling="mean"))
    pair = mean_cfg.restore(mean_cfg.build().snapshot())
    seen = look(pair, image)
    assert query_choices(pair.vit.config)[0] == ALL_PATCHES
    mean = query_maps(seen.weights, ALL_PATCHES, pair.vit.config)
    np.testing.assert_allclose(mean.reshape(*mean.shape[:2], -1), seen.weights.mean(2), atol=1e-6)


def test_shuffled_patches_are_the_same_patches_in_another_order():
    images = torch.rand(3, 1, 8, 8)
    mixed = shuffle_patches(images, 2, seed=1)
    assert not torch.equal(mixed, images)
    before = sorted(
        map(tuple, images[0, 0].reshape(4, 2, 4, 2).permute(0, 2, 1, 3).reshape(16, 4).tolist())
    )
    after = sorted(
        map(tuple, mixed[0, 0].reshape(4, 2, 4, 2).permute(0, 2, 1, 3).reshape(16, 4).tolist())
    )
    assert before == after


def test_a_vit_without_positions_reading_the_mean_ignores_the_patch_order():
    spec = replace(SPEC, vit=replace(SPEC.vit, positional="none", pooling="mean"))
    pair = spec.restore(spec.build().snapshot())
    x = pair.images.val_x[:16]
    with torch.no_grad():
        plain, mixed = pair.vit(x), pair.vit(shuffle_patches(x, 2))
    assert torch.allclose(plain, mixed, atol=1e-5)
    with_positions = SPEC.restore(SPEC.build().snapshot())
    with torch.no_grad():
        assert not torch.allclose(
            with_positions.vit(x), with_positions.vit(shuffle_patches(x, 2)), atol=1e-3
        )


def test_cnn_config_is_cached_per_vit():
    cfg = vit_config(SPEC.build().images, SPEC.vit)
    assert cnn_config(cfg) is cnn_config(cfg)


def test_a_run_starts_from_the_same_weights_whether_or_not_its_cnn_was_sized_before():
    """Sizing the CNN builds models to count their parameters; it must not draw from the global
    RNG between the run's seed and its CNN (a fresh server gave another untrained CNN than a
    warm one for the same link)."""
    import numpy as np

    from attnviz.topics.vision_patches.task import PRESETS, VisionJobSpec, cnn_config

    data, vit, _ = PRESETS["Digits 8×8: patches of 2"]
    spec = VisionJobSpec(data, vit)
    cnn_config.cache_clear()
    cold = spec.build().snapshot().cnn  # sized here, between the seed and the CNN
    warm = spec.build().snapshot().cnn  # sized already
    assert cold.keys() == warm.keys()
    assert all(np.array_equal(cold[k], warm[k]) for k in cold)


def test_a_restored_pair_is_keyed_by_its_content():
    """What the page's caches key on: equal for a copy of the snapshot (a cache hands out a new
    one each rerun), different for other weights or other images."""
    snap = SPEC.build().snapshot()
    copied = replace(
        snap,
        vit={n: a.copy() for n, a in snap.vit.items()},
        cnn={n: a.copy() for n, a in snap.cnn.items()},
    )
    key = SPEC.restore(snap).key
    assert SPEC.restore(copied).key == key
    copied.cnn[next(iter(copied.cnn))].flat[0] += 1.0
    assert SPEC.restore(copied).key != key
    other = replace(SPEC, data=replace(SPEC.data, n_train=200))
    assert other.restore(snap).key != key
