"""The kernel page's "Try this" claims 1-4 (attnviz.topics.kernel_smoother.params.TRY_THIS),
performed on the engine with the page's own settings (its parameter table and presets, mapped by its
scene: attnviz.topics.kernel_smoother.scene) and trained as the worker trains them. Claim 5 (boxcar
gaps) is performed on the page itself: tests/app/test_kernel_page.py."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics.kernel_smoother.scene import SCENE
from attnviz.topics.kernel_smoother.task import KernelTrainable, view_data
from attnviz.training.trainer import RunStatus, TrainConfig, Trainer

TABLE = SCENE.table


def page_task(**settings) -> tuple[KernelTrainable, TrainConfig]:
    """The page's task and training config for its defaults overridden by `settings`."""
    job = SCENE.config(SCENE.values(settings))
    return job.spec.build(), job.train


def train(task: KernelTrainable, config: TrainConfig) -> list[dict[str, float]]:
    """Run to the end (as Start does); the evaluations along the way, first to last."""
    trainer, seen = Trainer(task, config), [task.evaluate()]
    while trainer.status == RunStatus.RUNNING:
        trainer.step()
        if trainer.step_count % 25 == 0:
            seen.append(task.evaluate())
    assert trainer.step_count == config.steps, trainer.reason
    return seen + [task.evaluate()]


@pytest.mark.try_this("kernel-smoother", 1)
def test_gaussian_width_005_is_wiggly_and_5_is_flat():
    def curve(width: float) -> tuple[np.ndarray, np.ndarray]:
        task, _ = page_task(ks_kernel="gaussian", ks_width=width)
        return view_data(task, np.array([2.5], dtype=np.float32)).f_grid, task.data.y_train

    wiggly, y = curve(0.05)
    flat, _ = curve(5.0)
    assert not np.isnan(wiggly).any() and not np.isnan(flat).any()
    total_variation = np.abs(np.diff(wiggly)).sum(), np.abs(np.diff(flat)).sum()
    assert total_variation[0] > 50 * total_variation[1]  # 9.7 against 0.07
    assert np.ptp(flat) < 0.05 * np.ptp(y)  # flat: a near-constant line, the data span ≈ 3.8
    assert np.ptp(wiggly) > 0.8 * np.ptp(y)  # wiggly: it follows the noisy samples up and down
    turns = (np.diff(np.sign(np.diff(wiggly))) != 0).sum()
    assert turns >= 10  # many local ups and downs: it chases the noise (a sine has ≈ 2 here)


@pytest.mark.slow
@pytest.mark.try_this("kernel-smoother", 2)
def test_overfit_preset_training_loss_to_0_validation_loss_climbs_back():
    task, config = page_task(**TABLE.presets["Overfit without leave-one-out"])
    seen = train(task, config)
    train_loss = [e["train_loss"] for e in seen]
    val_loss = [e["val_loss"] for e in seen]
    assert train_loss[-1] < 0.1 * train_loss[0] and train_loss[-1] < 0.01  # 0.138 → 0.007
    lowest = int(np.argmin(val_loss))
    assert 0 < lowest < len(val_loss) - 1, "a first dip, then a rise"
    assert val_loss[-1] > 1.15 * val_loss[lowest]  # ≈ 0.12 → 0.154
    assert val_loss[-1] > 10 * train_loss[-1]  # it looked each training point up
    loo, config = page_task(**TABLE.presets["Overfit without leave-one-out"] | {"ks_loo": True})
    honest = train(loo, config)[-1]
    assert honest["train_loss"] > 5 * train_loss[-1]  # leave-one-out cannot look itself up


@pytest.mark.slow
@pytest.mark.try_this("kernel-smoother", 3)
def test_mahalanobis_separates_the_rings_and_dot_product_fails():
    mahalanobis, config = page_task(**TABLE.presets["Mahalanobis on rings"])
    metric = train(mahalanobis, config)[-1]
    assert metric["val_metric"] >= 0.95  # accuracy: the ring is separated (1.0)
    dot, config = page_task(**TABLE.presets["Dot product on rings"])
    failed = train(dot, config)[-1]
    assert failed["val_metric"] <= 0.7  # about chance (0.57): direction cannot tell the rings
    assert view_data(mahalanobis, np.zeros(2, dtype=np.float32)).ellipse is not None


@pytest.mark.try_this("kernel-smoother", 4)
def test_k_1_on_rings_makes_theta_one_row_and_the_ellipse_a_band():
    task, config = page_task(ks_data="rings_2d", ks_kernel="mahalanobis", ks_rank=1, ks_width=2.0)
    train(task, config)
    theta = task.model.theta.detach().numpy().astype(float)
    assert theta.shape == (1, 2)
    query = np.zeros(2, dtype=np.float32)
    v = view_data(task, query)
    outline = v.ellipse - query  # (120, 2) points d with ‖θ d‖ = 1 where not clipped
    across = np.abs(outline @ theta[0]) / np.linalg.norm(theta[0])  # distance along θ's row
    along = np.abs(outline @ np.array([-theta[0, 1], theta[0, 0]])) / np.linalg.norm(theta[0])
    half_width = 1 / np.linalg.norm(theta[0])
    # two parallel edges at ±1/|θ| (the outline is 120 samples of the curve: to within 1e-3)
    assert across.max() <= half_width * (1 + 1e-9)
    assert across.max() == pytest.approx(half_width, rel=1e-3)
    reach = float(np.ptp(v.grid, axis=0).max())
    assert along.max() == pytest.approx(reach, rel=1e-3)  # unbounded along θ's null space
    assert along.max() > 3 * across.max()  # a band, not an ellipse
