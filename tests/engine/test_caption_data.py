"""Caption data: the grammar round-trips, splits are seeded and keep held-out combinations out of
training, named words point at their shape's regions, and BLEU matches hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.data.captions import (
    BOS,
    EOS,
    PAD,
    UNK,
    VOCAB,
    CaptionTaskSpec,
    build_captions,
    caption,
    corpus_bleu,
    decode,
    encode,
    exact_match,
    named_shapes,
    new_scene,
    parse_caption,
    region_masks,
    size_word,
    token_accuracy,
)
from attnviz.data.shapes import Shape

SMALL = CaptionTaskSpec(n_shapes=2, n_train=200, n_val=80)


def _words(text: str) -> list[str]:
    return text.split()


def _combos(scenes) -> set[tuple[str, str]]:
    return {(s.colour, s.kind) for scene in scenes for s in scene}


def test_captions_parse_back_to_their_scene():
    task = build_captions(SMALL)
    for scene, text in zip(task.val_scenes, task.val_captions, strict=True):
        left_first = sorted(scene, key=lambda s: s.cx)
        assert parse_caption(text) == [(size_word(s), s.colour, s.kind) for s in left_first]
        assert decode(encode(text)) == text
        assert "left of" in text and len(text.split()) == 10


def test_one_shape_captions_and_the_grammar_refuses_other_text():
    shape = Shape("triangle", "green", 20.0, 20.0, 5.0)
    assert caption([shape]) == "a small green triangle"
    assert parse_caption("a large red square left of a small blue circle") == [
        ("large", "red", "square"),
        ("small", "blue", "circle"),
    ]
    for bad in (
        "a small green",
        "a huge red square",
        "a red small square",
        "a small red square of a",
    ):
        with pytest.raises(ValueError):
            parse_caption(bad)


def test_encode_decode_specials():
    ids = encode("a small purple circle")
    assert ids[2] == UNK
    assert decode([BOS, *ids, EOS, 5, 6]) == "a small <unk> circle"
    assert decode(torch.tensor([PAD, BOS, EOS])) == ""


def test_splits_are_seeded_and_held_out_combinations_never_train():
    a, b = build_captions(SMALL), build_captions.__wrapped__(SMALL)  # cached, and built afresh
    assert torch.equal(a.train_images, b.train_images) and torch.equal(a.val_y, b.val_y)
    other = build_captions(CaptionTaskSpec(n_shapes=2, n_train=200, n_val=80, seed=1))
    assert not torch.equal(a.train_y, other.train_y)
    held = set(SMALL.held_out)
    for row in a.train_y:
        words = decode(row).split()
        assert not any((words[i], words[i + 1]) in held for i in range(len(words) - 1))
    flagged = a.val_held_out.numpy()
    assert 0 < flagged.sum() < len(flagged)
    for scene, is_held in zip(a.val_scenes, flagged, strict=True):
        assert bool(_combos([scene]) & held) == bool(is_held)


def test_validation_does_not_change_with_n_train():
    more = build_captions(CaptionTaskSpec(n_shapes=2, n_train=300, n_val=80))
    assert torch.equal(more.val_images, build_captions(SMALL).val_images)


def test_named_words_point_at_their_shape():
    left = Shape("circle", "red", 10.0, 30.0, 5.0)
    right = Shape("square", "blue", 36.0, 12.0, 9.0)
    scene = [right, left]  # caption order is left to right, indices refer to the scene
    words = caption(scene).split()
    named = named_shapes(scene)
    assert len(named) == len(words) + 1 and named[-1] == -1
    assert [w for w, n in zip(words, named, strict=False) if n == 1] == ["red", "circle"]
    assert [w for w, n in zip(words, named, strict=False) if n == 0] == ["blue", "square"]


def test_region_masks_cover_the_shape():
    shape = Shape("square", "red", 12.0, 12.0, 3.0)  # pixels 9.45..14.55: regions (1,1) only
    masks = region_masks([shape], 48, 6)
    assert masks.shape == (2, 36) and not masks[1].any()
    assert np.flatnonzero(masks[0]).tolist() == [7]
    corner = region_masks([Shape("circle", "red", 8.0, 8.0, 5.0)], 48, 6)[0]
    assert set(np.flatnonzero(corner)) == {0, 1, 6, 7}


def test_problems_are_reported():
    assert CaptionTaskSpec().problems() == []
    assert CaptionTaskSpec(n_shapes=3).problems()
    assert CaptionTaskSpec(held_out=(("purple", "circle"),)).problems()
    with pytest.raises(ValueError):
        build_captions(CaptionTaskSpec(image_size=20))


def test_new_scene_is_seeded_and_renders():
    image, scene, text = new_scene(SMALL, seed=4)
    image2, _, text2 = new_scene(SMALL, seed=4)
    assert image.shape == (3, 48, 48) and np.array_equal(image, image2) and text == text2
    assert parse_caption(text) and len(scene) == 2
    _, held_scene, _ = new_scene(SMALL, seed=4, held=True)
    assert _combos([held_scene]) & set(SMALL.held_out)


def test_bleu_against_hand_computed_values():
    ref = _words("a large red square left of a small blue circle")
    assert corpus_bleu([ref], [ref]) == pytest.approx(1.0)
    # One word wrong ("green" for "blue", 9th of 10): unigrams 9/10, bigrams 7/9, trigrams 6/8,
    # 4-grams 5/7 (the n-grams holding "green" miss); same length, so no brevity penalty.
    cand = _words("a large red square left of a small green circle")
    hand = (9 / 10 * 7 / 9 * 6 / 8 * 5 / 7) ** 0.25
    assert corpus_bleu([cand], [ref]) == pytest.approx(hand)
    # A short candidate: "a large red square" against the 10-word reference: every n-gram
    # matches (p_n = 1), BP = exp(1 - 10/4).
    assert corpus_bleu([ref[:4]], [ref]) == pytest.approx(math.exp(1 - 10 / 4))
    # Clipping: "a a a a" against a reference with two "a": p1 = 2/4; no bigram matches -> 0.
    assert corpus_bleu([_words("a a a a")], [ref]) == 0.0
    assert corpus_bleu([_words("a a a a")], [ref], max_n=1) == pytest.approx(
        0.5 * math.exp(1 - 10 / 4)
    )
    assert corpus_bleu([[]], [ref]) == 0.0


def test_exact_match_and_token_accuracy():
    target = torch.tensor([[4, 5, 6, EOS, PAD], [4, 5, 7, EOS, PAD]])
    pred = torch.tensor([[4, 5, 6, EOS, PAD], [4, 5, 6, EOS, PAD]])
    assert exact_match(pred, target) == 0.5
    assert token_accuracy(pred, target) == pytest.approx(7 / 8)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(VOCAB[4:]), min_size=1, max_size=10))
def test_bleu_is_one_for_itself_and_within_0_and_1(words):
    assert corpus_bleu([words], [words], max_n=min(4, len(words))) == pytest.approx(1.0)
    ref = _words("a large red square left of a small blue circle")
    assert 0.0 <= corpus_bleu([words], [ref]) <= 1.0
