"""The captioning evaluation's scores on targets made from the captions a model writes, so that
each score meets the cases a wrong formula miscounts: a target that ends one word before the
model does (exact match needs the EOS where the target has it), a caption repeating "a" against
a target that says it once (BLEU clips n-gram counts), and targets longer than the captions
(BLEU's brevity penalty). The expected values are worked out in tests/support/caption_oracles.py
from greedy captions, never by the engine's metric code."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest
import torch

from attnviz.data.captions import VOCAB, CaptionTaskSpec
from attnviz.models.captioner import CaptionerConfig
from attnviz.topics.captioning.task import CaptionJobSpec, evaluate_model
from attnviz.training.trainer import TrainConfig, Trainer
from tests.support.caption_oracles import greedy_by_hand, scores_by_hand

RUN = TrainConfig(
    optimizer="adam", lr=1e-2, batch_mode="minibatch", steps=40, eval_every=40, snapshot_every=40
)
MODEL = CaptionerConfig(decoder="gru", width=4, d_model=16)
LEFT_OF = [VOCAB.index("left"), VOCAB.index("of")]


@cache
def model_trained_on(n_shapes: int):
    """A GRU captioner after 40 steps on scenes of n_shapes shapes (it writes captions of the
    grammar's length, partly right), and its task."""
    spec = CaptionJobSpec(CaptionTaskSpec(n_shapes=n_shapes, n_train=120, n_val=40), MODEL)
    trainer = Trainer(spec.build(), RUN).run()
    return trainer.task.model.eval(), trainer.task.task


def targets_from(written: list[list[int]], eos: int, bos: int, width: int) -> torch.Tensor:
    """Rows BOS + words + EOS + PAD from four written captions (each ending in EOS): its own
    caption; the caption less its last word; its first three words ("a", size, colour); its
    first phrase, "left of", its first phrase again."""
    words = [w[:-1] for w in written]
    made = [words[0], words[1][:-1], words[2][:3], words[3][:4] + LEFT_OF + words[3][:4]]
    y = torch.zeros(len(made), width, dtype=torch.long)  # PAD = 0
    for row, caption in zip(y, made, strict=True):
        ids = [bos, *caption, eos]
        row[: len(ids)] = torch.tensor(ids)
    return y


def repeats_more_than_target(written: list[int], target: list[int]) -> bool:
    """Some word the caption says more often than the target, which says it too."""
    mine, theirs = Counter(written), Counter(target)
    return any(theirs[w] and count > theirs[w] for w, count in mine.items())


@pytest.mark.parametrize("n_shapes", [1, 2], ids=["one shape", "two shapes"])
def test_the_scores_of_targets_made_from_the_models_own_captions(n_shapes):
    model, task = model_trained_on(n_shapes)
    c, images = model.config, task.val_images[:4]
    written = greedy_by_hand(model, images, task.val_y.shape[1] - 1)
    assert all(w[-1] == c.eos_id for w in written), "every caption ends"
    y = targets_from(written, c.eos_id, c.bos_id, task.val_y.shape[1])
    expected = scores_by_hand(model, images, y)
    _, exact, tokens, bleu = evaluate_model(model, images, y)
    assert exact == pytest.approx(expected.exact, abs=1e-6) == 0.25  # only its own caption
    assert tokens == pytest.approx(expected.tokens, abs=1e-6)
    assert bleu == pytest.approx(expected.bleu, abs=1e-9)
    assert 0 < expected.bleu < 1, expected
    refs = [row[1 : row.tolist().index(c.eos_id)].tolist() for row in y]
    if n_shapes == 1:  # 4-word captions against targets of 4, 3, 3 and 10 words
        assert sum(len(w) - 1 for w in written) < sum(map(len, refs)), "brevity penalty"
    else:  # 10-word captions: "a" twice against "a", size, colour
        assert repeats_more_than_target(written[2][:-1], refs[2]), "clipping"
