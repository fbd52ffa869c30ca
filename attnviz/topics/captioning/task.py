"""The captioning page's run: a CNN region encoder and a decoder (GRU with alignment attention,
or a causal transformer with cross-attention) trained with teacher forcing on shape scenes.

`CaptionJobSpec` (frozen) is what the job pool runs. `evaluate()` decodes validation images
greedily: the metric is the exact match of the captions of seen combinations; extras are their
token accuracy and BLEU and the exact match on the held-out combinations (never in training).
Snapshots carry the model's weights and the probe image's caption with its cross-attention
(words × layers × heads × regions); `spec.restore(snapshot)` rebuilds the model on the CPU (the
live protocol: attnviz.topics.live).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from attnviz.data.captions import (
    BOS,
    EOS,
    PAD,
    CaptionTask,
    CaptionTaskSpec,
    bleu_of_ids,
    build_captions,
    exact_match,
    token_accuracy,
)
from attnviz.models.captioner import Captioner, CaptionerConfig, greedy_decode
from attnviz.models.checkpoint import load_arrays, state_arrays
from attnviz.topics.live import preset_train
from attnviz.training.snapshot import Arrays, Snapshot
from attnviz.training.trainer import TrainConfig

EVAL_LIMIT = 400  # validation images decoded per evaluation
TRAIN_EVAL_LIMIT = 200  # training images decoded per evaluation (the train metric)
TOKEN_ACCURACY = "token accuracy"
BLEU = "BLEU"
HELD_OUT = "held-out exact match"


@dataclass(frozen=True, eq=False)
class CaptionSnapshot(Snapshot):
    """The model's weights at one step, and its caption of the probe image with the attention."""

    model: Arrays
    probe_ids: np.ndarray  # (T,): the caption's token ids
    probe_attention: np.ndarray  # (T, L, H, R): each word's cross-attention over the regions


@dataclass(frozen=True)
class CaptionJobSpec:
    task: CaptionTaskSpec = field(default_factory=CaptionTaskSpec)
    model: CaptionerConfig = field(default_factory=CaptionerConfig)  # sizes, vocabulary: from task
    device: str = "cpu"

    def build(self) -> CaptionTrainable:
        return CaptionTrainable(self)

    snapshot_type = CaptionSnapshot

    def restore(self, snapshot: CaptionSnapshot) -> TrainedCaptioner:
        """The model with a snapshot's weights, on the CPU, in eval mode, and its task."""
        task = build_captions(self.task)
        model = Captioner(model_config(task, self.model))
        return TrainedCaptioner(task, load_arrays(model, snapshot.model))


@dataclass
class TrainedCaptioner:
    """A snapshot's model (`CaptionJobSpec.restore`), and its task."""

    task: CaptionTask
    model: Captioner


def model_config(task: CaptionTask, model: CaptionerConfig) -> CaptionerConfig:
    """The model's config completed from the task (vocabulary, image, grid, caption length)."""
    s = task.spec
    return replace(
        model,
        vocab_size=len(task.vocab),
        image_size=s.image_size,
        grid=s.grid,
        max_len=task.max_len,
        pad_id=PAD,
        bos_id=BOS,
        eos_id=EOS,
    )


class CaptionTrainable:
    def __init__(self, spec: CaptionJobSpec):
        self.spec = spec
        self.task = build_captions(spec.task)
        self.device = torch.device(spec.device)
        torch.manual_seed(spec.task.seed)
        self.config = model_config(self.task, spec.model)
        self.model = Captioner(self.config).to(self.device)
        to, t = self.device, self.task
        self.train = (t.train_images.to(to), t.train_y.to(to))
        seen, held = (~t.val_held_out).nonzero()[:, 0], t.val_held_out.nonzero()[:, 0]
        self.val = (t.val_images[seen][:EVAL_LIMIT].to(to), t.val_y[seen][:EVAL_LIMIT].to(to))
        self.held = (t.val_images[held][:EVAL_LIMIT].to(to), t.val_y[held][:EVAL_LIMIT].to(to))
        self.n_train = len(t.train_images)
        self.metric_name = "exact match"

    def parameters(self) -> list[Tensor]:
        return list(self.model.parameters())

    def loss(self, batch: Tensor) -> Tensor:
        images, y = (part[batch.to(self.device)] for part in self.train)
        self.model.train()
        return teacher_forced_loss(self.model, images, y)

    def evaluate(self) -> dict[str, float]:
        val_loss, exact, tokens, bleu = evaluate_model(self.model, *self.val)
        train_loss, train_exact, _, _ = evaluate_model(
            self.model, *(p[:TRAIN_EVAL_LIMIT] for p in self.train)
        )
        out = {
            "val_loss": val_loss,
            "val_metric": exact,
            "train_loss": train_loss,
            "train_metric": train_exact,
            TOKEN_ACCURACY: tokens,
            BLEU: bleu,
        }
        if len(self.held[0]):
            out[HELD_OUT] = evaluate_model(self.model, *self.held)[1]
        return out

    def snapshot(self) -> CaptionSnapshot:
        p = self.task.probe
        image = self.task.val_images[p : p + 1].to(self.device)
        ids, weights = greedy_decode(self.model, image)  # (1, T), (1, T, L, H, R)
        return CaptionSnapshot(
            state_arrays(self.model), ids[0].cpu().numpy(), weights[0].cpu().numpy()
        )


def teacher_forced_loss(model: Captioner, images: Tensor, y: Tensor) -> Tensor:
    logits = model(images, y[:, :-1])  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1), y[:, 1:].flatten(), ignore_index=PAD)


def evaluate_model(
    model: Captioner, images: Tensor, y: Tensor
) -> tuple[float, float, float, float]:
    """(teacher-forced loss, exact match, token accuracy, BLEU) of greedy captions; y rows are
    BOS + caption + EOS + PAD."""
    model.eval()
    with torch.no_grad():
        loss = float(teacher_forced_loss(model, images, y))
        ids, _ = greedy_decode(model, images, y.shape[1] - 1)
    target = y[:, 1:].cpu()
    ids = ids.cpu()
    return loss, exact_match(ids, target), token_accuracy(ids, target), bleu_of_ids(ids, target)


# Measured (seed 0, one CPU thread on a machine shared with other work; `python -m
# benchmarks.captioning` prints them afresh): "One shape, GRU" passes 95 % exact match (seen
# combinations) at step 100 (15 s) and ends at 100 % (200 steps, 28 s); its colour and shape words
# put 0.92 of their attention on the named shape (0.15 at initialisation; the shape covers 0.15
# of the regions). "Two shapes, transformer" passes 95 % at step 300 (34 s) and ends at 99.6 %
# (400 steps, 45 s); share 0.48 (mean of 2 layers × 2 heads; best head 0.63) against 0.15 at
# initialisation. Held-out pairs (blue triangles) stay at 0 % (GRU) and 13 % (transformer) exact
# match: both say "blue" every time, then a kind they have seen blue (circle, square).
PRESETS: dict[str, tuple[CaptionTaskSpec, CaptionerConfig, TrainConfig]] = {
    "One shape, GRU + additive attention": (
        CaptionTaskSpec(n_shapes=1),
        CaptionerConfig(decoder="gru", score="additive", d_model=64, width=8),
        preset_train(200),
    ),
    "Two shapes, transformer decoder": (
        CaptionTaskSpec(n_shapes=2),
        CaptionerConfig(decoder="transformer", d_model=64, n_layer=2, n_head=2, width=8),
        preset_train(400),
    ),
}
