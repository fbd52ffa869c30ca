"""Induction heads: an attention-only TinyTransformer trained on sequences with repeated random
segments, as a live-training job (the protocol of attnviz.topics.live), and what the page does
with a trained one (ablate heads, mark the phase change). The sinks experiment trains the same
job with another attention function and with or without a BOS token (sinks.py).

Snapshots carry the loss, the in-context losses (targets in the repeated copy vs in the first
copy), per-head scores on half-repeated probe sequences (scores.head_scores), the first probe's
attention maps (L, H, T, T) and the weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnviz.core.hooks import run_with_cache
from attnviz.models.checkpoint import load_arrays
from attnviz.models.transformer import (
    TinyTransformer,
    TransformerConfig,
    ablate_heads,
    attention_maps,
)
from attnviz.topics import live
from attnviz.topics.watch_circuits.data import Segments, half_repeated, repeated_segments
from attnviz.topics.watch_circuits.scores import head_scores, phase_change_step
from attnviz.training.snapshot import Arrays, Snapshot
from attnviz.training.trainer import TrainConfig

N_PROBES = 64  # half-repeated sequences the head scores average over


@dataclass(frozen=True)
class SegmentData:
    vocab: int = 32
    length: int = 32  # the context, BOS included
    seg_min: int = 6
    seg_max: int = 16
    n_train: int = 8192
    n_val: int = 512
    bos: bool = False  # start every sequence with a BOS token (id `vocab`)
    seed: int = 0

    def build(self, n: int, seed_offset: int) -> Segments:
        bos = self.vocab if self.bos else None
        args = (self.length, self.vocab, self.seg_min, self.seg_max, self.seed + seed_offset)
        return repeated_segments(n, *args, bos=bos)

    def probes(self) -> Segments:
        bos = self.vocab if self.bos else None
        return half_repeated(N_PROBES, self.length, self.vocab, self.seed + 2, bos)


ATTENTION_ONLY = TransformerConfig(n_layer=2, n_head=2, d_model=32, mlp=False, causal=True)
INDUCTION_DATA = SegmentData(seg_min=8, seg_max=16, seed=0)  # the page's induction experiment


@dataclass(frozen=True, eq=False)
class InductionSnapshot(Snapshot):
    """The model at one step: its maps and head scores on the probe, its validation losses (the
    repeated copy's and the first copy's), and its weights."""

    attention: np.ndarray  # (L, H, T, T): the first probe sequence's maps
    probe: np.ndarray  # (T,): that sequence's token ids
    scores: dict[str, np.ndarray]  # score kind ("previous", "induction", "sink") -> (L, H)
    loss: float
    loss_first_copy: float
    loss_repeated_copy: float
    state: Arrays


@dataclass(frozen=True)
class InductionJobSpec:
    data: SegmentData = field(default_factory=SegmentData)
    model: TransformerConfig = ATTENTION_ONLY  # vocabulary, length and causality from the data
    device: str = "cpu"

    def model_config(self) -> TransformerConfig:
        vocab = self.data.vocab + int(self.data.bos)
        return replace(self.model, vocab_size=vocab, max_len=self.data.length, causal=True)

    def build(self) -> InductionTrainable:
        return InductionTrainable(self)

    snapshot_type = InductionSnapshot

    def restore(self, snapshot: InductionSnapshot) -> TinyTransformer:
        """A model with the snapshot's weights, on the CPU in eval mode."""
        return load_arrays(TinyTransformer(self.model_config()), snapshot.state)


def balanced_init(model: TinyTransformer) -> TinyTransformer:
    """Token and learned position embeddings of the same size (entries ~ N(0, 1) once the
    model scales tokens by √d): TinyTransformer's default leaves positions 50× smaller than
    tokens, and a previous-token head, which needs positions, then forms very slowly."""
    with torch.no_grad():
        model.embed.weight.normal_(0.0, model.config.d_model**-0.5)
        if isinstance(model.pos, nn.Parameter):
            model.pos.normal_(0.0, 1.0)
    return model


def token_losses(model: TinyTransformer, ids: Tensor, logits: Tensor | None = None) -> Tensor:
    """Each target's cross-entropy (N, T): position t's loss predicts ids[:, t] from ids[:, :t]
    (column 0, which nothing predicts, is 0)."""
    if logits is None:
        logits = model(ids)
    lost = F.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten(), reduction="none")
    return F.pad(lost.view(ids.shape[0], -1), (1, 0))


def in_context_losses(losses: Tensor, data: Segments) -> tuple[float, float]:
    """(mean loss on the first copy's targets, mean loss on the repeated copy's targets)."""
    first, repeat = torch.as_tensor(data.first), torch.as_tensor(data.repeat)
    return float(losses[first].mean()), float(losses[repeat].mean())


class InductionTrainable:
    def __init__(self, spec: InductionJobSpec):
        self.spec, self.device = spec, torch.device(spec.device)
        torch.manual_seed(spec.data.seed)
        self.config = spec.model_config()
        self.model = balanced_init(TinyTransformer(self.config)).to(self.device)
        self.train_data = spec.data.build(spec.data.n_train, 0)
        self.val_data = spec.data.build(spec.data.n_val, 1)
        self.probe_data = spec.data.probes()
        to = self.device
        self.train_ids = torch.as_tensor(self.train_data.ids).to(to)
        self.val_ids = torch.as_tensor(self.val_data.ids).to(to)
        self.probe_ids = torch.as_tensor(self.probe_data.ids).to(to)
        self.n_train, self.metric_name = len(self.train_ids), "repeated-copy accuracy"

    def parameters(self) -> list[Tensor]:
        return list(self.model.parameters())

    def loss(self, batch: Tensor) -> Tensor:
        self.model.train()
        ids = self.train_ids[batch.to(self.device)]
        logits = self.model(ids)
        return F.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten())

    def _measure(self, ids: Tensor, data: Segments) -> dict[str, float]:
        logits = self.model(ids)
        losses = token_losses(self.model, ids, logits).cpu()
        first, repeat = in_context_losses(losses, data)
        right = (logits[:, :-1].argmax(-1) == ids[:, 1:]).cpu()
        mask = torch.as_tensor(data.repeat[:, 1:])
        acc = float(right[mask].float().mean())
        return {"loss": float(losses[:, 1:].mean()), "first": first, "repeat": repeat, "acc": acc}

    def evaluate(self) -> dict[str, float]:
        self.model.eval()
        val = self._measure(self.val_ids, self.val_data)
        n = self.spec.data.n_val
        train = self._measure(self.train_ids[:n], self.train_data.head(n))
        return {
            "train_loss": train["loss"],
            "val_loss": val["loss"],
            "train_metric": train["acc"],
            "val_metric": val["acc"],
            "loss_first_copy": val["first"],
            "loss_repeated_copy": val["repeat"],
        }

    @torch.no_grad()  # also when called outside the Trainer (live.train's last snapshot)
    def snapshot(self) -> InductionSnapshot:
        self.model.eval()
        _, cache = run_with_cache(self.model, self.probe_ids)
        maps = attention_maps(cache, self.config.n_layer)  # (L, B, H, T, T)
        scores = head_scores(maps, self.probe_ids)
        state = {k: v.detach().cpu().numpy().copy() for k, v in self.model.state_dict().items()}
        last = self._measure(self.val_ids, self.val_data)
        return InductionSnapshot(
            attention=maps[:, 0].cpu().numpy(),
            probe=np.asarray(self.probe_data.ids[0]),
            scores=scores,
            loss=last["loss"],
            loss_first_copy=last["first"],
            loss_repeated_copy=last["repeat"],
            state=state,
        )


def repeated_copy_loss(
    model: TinyTransformer, data: Segments, heads: list[tuple[int, int]] | None = None
) -> float:
    """The mean loss on the repeated copy's targets, with the listed (layer, head) zeroed."""
    ids = torch.as_tensor(data.ids)
    with torch.no_grad():
        logits = ablate_heads(model, ids, heads) if heads else model(ids)
        return in_context_losses(token_losses(model, ids, logits), data)[1]


def ablation_losses(model: TinyTransformer, data: Segments) -> np.ndarray:
    """(L, H): the repeated copy's loss when each head alone is zeroed."""
    c = model.config
    return np.array(
        [
            [repeated_copy_loss(model, data, [(li, h)]) for h in range(c.n_head)]
            for li in range(c.n_layer)
        ]
    )


def score_history(
    snapshots: Sequence[tuple[int, InductionSnapshot]],
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(steps (S,), {score kind: (S, L, H)}) over a run's snapshots."""
    steps = np.array([s for s, _ in snapshots])
    kinds = snapshots[0][1].scores.keys()
    return steps, {k: np.stack([snap.scores[k] for _, snap in snapshots]) for k in kinds}


def loss_curve(
    snapshots: Sequence[tuple[int, InductionSnapshot]], key: str = "loss_repeated_copy"
) -> np.ndarray:
    """A snapshot number over the run, e.g. the repeated copy's loss. (S,)"""
    return np.array([float(getattr(snap, key)) for _, snap in snapshots])


def induction_bump(
    snapshots: Sequence[tuple[int, InductionSnapshot]], min_drop: float = 0.5
) -> int | None:
    """The phase change: the step at which the repeated copy's loss falls fastest *below the
    first copy's* (the early fall of both, learning token frequencies, does not count); None
    when no interval's fall exceeds `min_drop` nats."""
    steps = [s for s, _ in snapshots]
    gap = loss_curve(snapshots) - loss_curve(snapshots, "loss_first_copy")
    return phase_change_step(steps, gap, min_drop)


def train_config(steps: int, lr: float, batch_size: int, every: int = 25) -> TrainConfig:
    return live.preset_train(
        steps, lr, optimizer="adamw", batch_size=batch_size, schedule="constant", every=every
    )
