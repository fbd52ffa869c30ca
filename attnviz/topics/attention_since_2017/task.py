"""Attention variants trained side by side: one job, one model per variant, the same task, the
same seed (every model starts from it), the same batches and the same number of steps.

`VariantsJobSpec` (frozen) is what the job pool runs (the protocol of attnviz.topics.live): its
Trainable's loss is the mean of the variants' losses on the same batch, so each model gets its
own gradient (its parameters appear in its own loss only; Adam's steps do not depend on the
1/k). Evaluations give the mean as the run's loss and accuracy and each variant's as extras
(`<variant> loss`, `<variant> accuracy`); snapshots carry each variant's probe maps
(L, H, T, T), its first token's share of attention per layer, and its weights.

The first token's share: the mean weight on key 0 over every layer, head and query after the
first (query 0 sees only key 0), on FIRST_TOKEN_EXAMPLES validation sequences. Spread evenly
over a causal row it would be the mean of 1/(i + 1), `uniform_share(T)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from attnviz.core.hooks import run_with_cache
from attnviz.data.tasks import IGNORE, SequenceTask, TaskSpec, build_task
from attnviz.models.transformer import TransformerConfig, attention_maps
from attnviz.models.variant_attention import VARIANTS, VariantConfig
from attnviz.models.variant_transformer import VariantModelConfig, VariantTransformer
from attnviz.training.snapshot import Snapshot

EVAL_LIMIT = 512  # validation examples scored per evaluation
FIRST_TOKEN_EXAMPLES = 64  # validation sequences the first token's share averages over
DEFAULT_MODEL = TransformerConfig(n_layer=2, n_head=4, d_model=32, d_ff=64)


@dataclass(frozen=True, eq=False)
class VariantsSnapshot(Snapshot):
    """Each variant's model at one step: variant -> {"attention": its maps on the probe
    (L, H, T, T), "first_token": the weight on the first token (L, H), "state": its weights}."""

    variants: dict[str, dict[str, Any]]


@dataclass(frozen=True)
class VariantsJobSpec:
    task: TaskSpec = field(default_factory=lambda: TaskSpec("copy", length=8))
    model: TransformerConfig = DEFAULT_MODEL  # completed by the task (vocabulary, length)
    variants: tuple[str, ...] = VARIANTS
    attention: VariantConfig = field(default_factory=VariantConfig)  # groups, latent, window
    device: str = "cpu"

    def build(self) -> VariantsTrainable:
        return VariantsTrainable(self)

    def configs(self, task: SequenceTask) -> dict[str, VariantModelConfig]:
        """Each variant's model config, completed from the task."""
        model = replace(
            self.model, vocab_size=len(task.vocab), max_len=task.train_x.shape[1], causal=True
        )
        return {
            v: VariantModelConfig(model, replace(self.attention, kind=v)) for v in self.variants
        }

    def models(self, task: SequenceTask) -> dict[str, VariantTransformer]:
        """Each variant's model, every one seeded alike (the task's seed)."""
        out = {}
        for variant, config in self.configs(task).items():
            torch.manual_seed(self.task.seed)
            out[variant] = VariantTransformer(config)
        return out

    snapshot_type = VariantsSnapshot

    def restore(
        self, snapshot: VariantsSnapshot
    ) -> tuple[SequenceTask, dict[str, VariantTransformer]]:
        """The task and each variant's model with the snapshot's weights (CPU, eval mode)."""
        task = build_task(self.task)
        models = self.models(task)
        for variant, model in models.items():
            state = snapshot.variants[variant]["state"]
            model.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()})
            model.eval()
        return task, models


class VariantsTrainable:
    def __init__(self, spec: VariantsJobSpec):
        self.spec = spec
        self.task = build_task(spec.task)
        if not self.task.causal:
            raise ValueError(f"{spec.task.name} is not a decoder task: nothing is cached")
        self.device = torch.device(spec.device)
        self.models = {v: m.to(self.device) for v, m in spec.models(self.task).items()}
        to = self.device
        self.train_x, self.train_y = self.task.train_x.to(to), self.task.train_y.to(to)
        self.val_x = self.task.val_x[:EVAL_LIMIT].to(to)
        self.val_y = self.task.val_y[:EVAL_LIMIT].to(to)
        self.n_train = len(self.train_x)
        self.metric_name = "token accuracy"

    def parameters(self) -> list[Tensor]:
        return [p for model in self.models.values() for p in model.parameters()]

    def loss(self, batch: Tensor) -> Tensor:
        batch = batch.to(self.device)
        x, y = self.train_x[batch], self.train_y[batch]
        losses = []
        for model in self.models.values():
            model.train()
            losses.append(token_loss(model(x), y))
        return torch.stack(losses).mean()

    def evaluate(self) -> dict[str, float]:
        extra, train_loss, train_acc = {}, [], []
        with torch.no_grad():
            for variant, model in self.models.items():
                model.eval()
                loss, acc = loss_accuracy(model, self.val_x, self.val_y)
                extra[f"{variant} loss"], extra[f"{variant} accuracy"] = loss, acc
                tl, ta = loss_accuracy(model, self.train_x[:EVAL_LIMIT], self.train_y[:EVAL_LIMIT])
                train_loss.append(tl)
                train_acc.append(ta)
        k = len(self.models)
        return {
            "train_loss": sum(train_loss) / k,
            "val_loss": sum(extra[f"{v} loss"] for v in self.models) / k,
            "train_metric": sum(train_acc) / k,
            "val_metric": sum(extra[f"{v} accuracy"] for v in self.models) / k,
            **extra,
        }

    def snapshot(self) -> VariantsSnapshot:
        probe = self.val_x[self.task.probe : self.task.probe + 1]
        sample = self.val_x[:FIRST_TOKEN_EXAMPLES]
        out = {}
        for variant, model in self.models.items():
            model.eval()
            n_layer = model.config.n_layer
            _, cache = run_with_cache(model, probe)
            maps = attention_maps(cache, n_layer)[:, 0]  # (L, H, T, T)
            _, cache = run_with_cache(model, sample)
            state = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
            out[variant] = {
                "attention": maps.cpu().numpy(),
                "first_token": first_token_share(attention_maps(cache, n_layer)).cpu().numpy(),
                "state": state,
            }
        return VariantsSnapshot(out)


def token_loss(logits: Tensor, y: Tensor) -> Tensor:
    """Cross-entropy over the scored positions; logits (B, T, V), y (B, T)."""
    return F.cross_entropy(logits.flatten(0, 1), y.flatten(), ignore_index=IGNORE)


def loss_accuracy(model: VariantTransformer, x: Tensor, y: Tensor) -> tuple[float, float]:
    """(loss, token accuracy over the scored positions)."""
    logits = model(x)
    keep = y != IGNORE
    return float(token_loss(logits, y)), float((logits.argmax(-1)[keep] == y[keep]).float().mean())


def first_token_share(maps: Tensor) -> Tensor:
    """Mean weight on key 0 of each layer: maps (L, B, H, T, T) -> (L,), over the batch, heads
    and queries 1..T−1."""
    return maps[..., 1:, 0].mean(dim=(1, 2, 3))


def uniform_share(t: int) -> float:
    """The first token's share if every causal row spread its weight evenly: mean of 1/(i + 1)
    over queries i = 1..T−1."""
    return float(np.mean([1 / (i + 1) for i in range(1, t)]))


def parameter_count(config: VariantModelConfig) -> int:
    """Parameters of the attention layers of a variant's model (the rest is the same for all)."""
    with torch.random.fork_rng(devices=[]):  # other sessions share the global generator
        model = VariantTransformer(config)
    return sum(p.numel() for block in model.blocks for p in block.attn.parameters())
