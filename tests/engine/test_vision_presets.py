"""Each preset of the vision page reaches the accuracy the page states (slow: about a minute
each on 2 cores; each run trained once for the session by the page's scene, as the page trains
it: the `trained` fixture, tests/support/trained.py), and on the shapes the trained class token
looks at the shape."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.topics.vision_patches.inference import (
    CLASS_TOKEN,
    attention_on_ink,
    look,
    shuffled_accuracy,
)
from attnviz.topics.vision_patches.task import PRESETS

URL = "vision-patches"

# preset -> (ViT, CNN) validation accuracy it must reach: the page's stated figures, less a margin
STATED = {
    "Digits 8×8: patches of 2": (0.92, 0.95),
    "MNIST 28×28: patches of 4": (0.80, 0.93),
    "Shapes: which shape?": (0.90, 0.95),
    "Shapes: where is the circle?": (0.75, 0.95),
}
# How often each run is evaluated: the tests read only its end, but the digits' course at step
# 100 (the CNN learns first); evaluations change no weight, and cost a third of a run.
EVERY = {"Digits 8×8: patches of 2": 100}
FINAL = 10_000  # longer than any preset: evaluated (and snapshotted) at the start and the end


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_reaches_its_stated_accuracy(name, trained):
    vit, cnn = STATED[name]
    history = trained(URL, name, every=EVERY.get(name, FINAL)).history
    assert history.val_metric[-1] >= vit, history.val_metric[-5:]
    assert history.latest_extra("CNN val_metric") >= cnn, history.extra[-1]


@pytest.mark.slow
@pytest.mark.try_this("vision-patches", 1)
def test_the_cnn_learns_the_digits_first(trained):
    history = trained(
        URL, "Digits 8×8: patches of 2", every=EVERY["Digits 8×8: patches of 2"]
    ).history
    at_100 = history.eval_step.index(100)
    cnn_100 = history.extra[at_100]["CNN val_metric"]
    assert cnn_100 >= 0.90, cnn_100
    assert history.val_metric[at_100] < cnn_100
    assert history.val_metric[-1] >= 0.92


@pytest.mark.slow
@pytest.mark.try_this("vision-patches", 3)
def test_without_positions_shuffling_the_patches_changes_nothing(trained):
    name = "Digits 8×8: patches of 2"
    scores = shuffled_accuracy(
        trained(URL, name, every=FINAL, vi_steps=200, vi_pos="none", vi_pool="mean").restore()
    )
    bag, bag_shuffled = scores["ViT"]
    assert abs(bag_shuffled - bag) <= 1 / 360, scores  # the same (float sums: ≤ 1 image)
    assert 0.2 < bag < 0.6, "a bag of 2×2 patches tells digits apart only roughly"
    plain, shuffled = shuffled_accuracy(trained(URL, name, every=FINAL, vi_steps=200).restore())[
        "ViT"
    ]
    assert plain > bag + 0.3, (plain, bag)
    assert shuffled < plain - 0.2, (plain, shuffled)


@pytest.mark.slow
@pytest.mark.try_this("vision-patches", 2)
def test_the_trained_class_token_looks_at_the_shape(trained):
    run = trained(URL, "Shapes: which shape?", every=FINAL)  # its start and its end
    pair = run.restore()
    untrained = run.job.spec.restore(run.snapshots[0][1])
    config = pair.vit.config

    def ratio(model_pair) -> float:
        shares = []
        for image in pair.images.val_x[:50].numpy():
            on_ink, area = attention_on_ink(
                look(model_pair, image).weights, image, CLASS_TOKEN, config
            )
            shares.append(on_ink / area)
        return float(np.mean(shares))

    trained, before = ratio(pair), ratio(untrained)
    assert trained > 1.5, f"the class token's rollout on the shape is only {trained:.2f}× its area"
    assert trained > before + 0.3, (trained, before)
