"""Grokking: a one-layer transformer learns a + b mod p from a fraction of all pairs, with AdamW's
weight decay, as a live-training job (the protocol of attnviz.topics.live).

A sequence is the three tokens a, b, "=" (id p), and the logits at "=" predict (a + b) mod p.
Full-batch training memorises the training pairs early; validation accuracy jumps much later,
once weight decay has pushed the network to the Fourier algorithm (Nanda et al., 2023). The
progress measures ride on each evaluation: the weight norm and the number of key frequencies
of the embedding's Fourier spectrum; snapshots add the spectrum itself and the weights.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from attnviz.models.checkpoint import load_arrays
from attnviz.models.transformer import TinyTransformer, TransformerConfig
from attnviz.topics.watch_circuits.data import fourier_spectrum, key_frequencies, modular_split
from attnviz.topics.watch_circuits.induction import balanced_init
from attnviz.training.snapshot import Arrays, Snapshot
from attnviz.training.trainer import TrainConfig

ONE_LAYER = TransformerConfig(n_layer=1, n_head=4, d_model=128, d_ff=512)


@dataclass(frozen=True, eq=False)
class GrokkingSnapshot(Snapshot):
    """The model at one step: its embedding's Fourier spectrum, the key frequencies in it, the
    weights' norm, and the weights."""

    spectrum: np.ndarray  # (p // 2 + 1,): the embedding's power per frequency
    key_frequencies: np.ndarray  # the frequencies that stand out
    weight_norm: float
    state: Arrays


@dataclass(frozen=True)
class GrokkingJobSpec:
    p: int = 53
    fraction: float = 0.4  # of all p² pairs, for training
    model: TransformerConfig = ONE_LAYER  # vocabulary and length from p
    seed: int = 0
    device: str = "cpu"

    def model_config(self) -> TransformerConfig:
        return replace(self.model, vocab_size=self.p + 1, max_len=3, causal=False)

    def build(self) -> GrokkingTrainable:
        return GrokkingTrainable(self)

    snapshot_type = GrokkingSnapshot

    def restore(self, snapshot: GrokkingSnapshot) -> TinyTransformer:
        """A model with the snapshot's weights, on the CPU in eval mode."""
        return load_arrays(TinyTransformer(self.model_config()), snapshot.state)


def sequences(pairs: np.ndarray, p: int) -> tuple[Tensor, Tensor]:
    """(ids (n, 3): a, b, "=", answers (n,): (a + b) mod p)."""
    pairs = torch.as_tensor(pairs, dtype=torch.long)
    ids = torch.cat([pairs, torch.full((len(pairs), 1), p)], 1)
    return ids, (pairs[:, 0] + pairs[:, 1]) % p


def weight_norm(model: torch.nn.Module) -> float:
    """The L2 norm of all parameters together."""
    return float(torch.sqrt(sum((w.detach() ** 2).sum() for w in model.parameters())))


def embedding_spectrum(model: TinyTransformer, p: int) -> np.ndarray:
    """The Fourier spectrum (data.fourier_spectrum) of the number tokens' embeddings (p, d)."""
    return fourier_spectrum(model.embed.weight.detach().cpu().numpy()[:p].astype(np.float64))


class GrokkingTrainable:
    def __init__(self, spec: GrokkingJobSpec):
        self.spec, self.device = spec, torch.device(spec.device)
        torch.manual_seed(spec.seed)
        self.model = balanced_init(TinyTransformer(spec.model_config())).to(self.device)
        train, val = modular_split(spec.p, spec.fraction, spec.seed)
        self.train_x, self.train_y = (t.to(self.device) for t in sequences(train, spec.p))
        self.val_x, self.val_y = (t.to(self.device) for t in sequences(val, spec.p))
        self.n_train, self.metric_name = len(self.train_x), "accuracy"

    def parameters(self) -> list[Tensor]:
        return list(self.model.parameters())

    def loss(self, batch: Tensor) -> Tensor:
        self.model.train()
        batch = batch.to(self.device)
        return F.cross_entropy(self.model(self.train_x[batch])[:, -1], self.train_y[batch])

    def _score(self, x: Tensor, y: Tensor) -> tuple[float, float]:
        logits = self.model(x)[:, -1]
        return float(F.cross_entropy(logits, y)), float((logits.argmax(-1) == y).float().mean())

    def evaluate(self) -> dict[str, float]:
        self.model.eval()
        train_loss, train_acc = self._score(self.train_x, self.train_y)
        val_loss, val_acc = self._score(self.val_x, self.val_y)
        spectrum = embedding_spectrum(self.model, self.spec.p)
        return {
            "train_loss": train_loss,
            "val_loss": val_loss,
            "train_metric": train_acc,
            "val_metric": val_acc,
            "weight_norm": weight_norm(self.model),
            "key_frequencies": float(len(key_frequencies(spectrum))),
        }

    def snapshot(self) -> GrokkingSnapshot:
        self.model.eval()
        spectrum = embedding_spectrum(self.model, self.spec.p)
        state = {k: v.detach().cpu().numpy().copy() for k, v in self.model.state_dict().items()}
        return GrokkingSnapshot(
            spectrum, np.asarray(key_frequencies(spectrum)), weight_norm(self.model), state
        )


def grokking_step(steps, val_accuracy, threshold: float = 0.95) -> int | None:
    """The first evaluated step at which validation accuracy reaches `threshold` (or None)."""
    for step, acc in zip(steps, val_accuracy, strict=True):
        if acc >= threshold:
            return int(step)
    return None


def train_config(
    steps: int, lr: float = 1e-3, weight_decay: float = 1.0, every: int = 50
) -> TrainConfig:
    """Full batch, AdamW with weight decay, constant learning rate."""
    return TrainConfig(
        optimizer="adamw",
        lr=lr,
        weight_decay=weight_decay,
        batch_mode="full",
        steps=steps,
        schedule="constant",
        eval_every=every,
        snapshot_every=every * 4,
    )
