"""The recurrence page's run: an RNN encoder–decoder with attention and the same model without
attention (the decoder sees only the encoder's last state), trained side by side on dates.

`RecurrentJobSpec` (frozen) is what the job pool runs. One Trainable holds both models; each step
both see the same batch; the loss the Trainer reports is the attention model's, the gradient
carries the baseline's too (disjoint parameters). `evaluate()` scores both by greedy decoding
(exact match is the metric; per-token accuracy an extra; the baseline's numbers under the
BASELINE prefix, drawn on the same chart). Snapshots carry both models' weights and the probe's
alignment (output characters × input characters); `spec.restore(snapshot)` rebuilds both models
on the CPU (the live protocol: attnviz.topics.live).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnviz.data.dates import (
    BOS,
    EOS,
    PAD,
    DateTask,
    DateTaskSpec,
    build_dates,
    exact_rows,
    token_accuracy,
)
from attnviz.models.checkpoint import load_arrays, state_arrays
from attnviz.models.rnn import Seq2Seq, Seq2SeqConfig, alignment, greedy_decode
from attnviz.topics.live import preset_train
from attnviz.training.snapshot import Arrays, Snapshot
from attnviz.training.trainer import TrainConfig

EVAL_LIMIT = 500  # validation examples decoded per evaluation
BASELINE = "no attention"  # the prefix of the baseline's numbers in evaluate()
TOKEN_ACCURACY = "token accuracy"
SCORES = ("additive", "dot", "general")


@dataclass(frozen=True, eq=False)
class RecurrentSnapshot(Snapshot):
    """Both models' weights at one step, and the attention model's alignment on the probe."""

    alignment: np.ndarray  # (Tout, Tin): output characters × input characters
    model: Arrays
    baseline: Arrays


@dataclass(frozen=True)
class RecurrentJobSpec:
    task: DateTaskSpec = field(default_factory=DateTaskSpec)
    model: Seq2SeqConfig = field(default_factory=Seq2SeqConfig)  # vocabulary, lengths: from task
    device: str = "cpu"

    def build(self) -> RecurrentTrainable:
        return RecurrentTrainable(self)

    snapshot_type = RecurrentSnapshot

    def restore(self, snapshot: RecurrentSnapshot) -> TrainedRecurrent:
        """Both models with a snapshot's weights, on the CPU, in eval mode, and their task."""
        task = build_dates(self.task)
        config = model_config(task, self.model)
        model, baseline = Seq2Seq(config), Seq2Seq(baseline_config(config))
        return TrainedRecurrent(
            task, load_arrays(model, snapshot.model), load_arrays(baseline, snapshot.baseline)
        )


@dataclass
class TrainedRecurrent:
    """Both models of a snapshot (`RecurrentJobSpec.restore`), and their task."""

    task: DateTask
    model: Seq2Seq
    baseline: Seq2Seq


def model_config(task: DateTask, model: Seq2SeqConfig) -> Seq2SeqConfig:
    """The attention model's config completed from the task (vocabulary, output length)."""
    return replace(model, vocab_size=len(task.vocab), max_out=task.max_out + 1)


def baseline_config(config: Seq2SeqConfig) -> Seq2SeqConfig:
    return replace(config, attention="none")


class RecurrentTrainable:
    def __init__(self, spec: RecurrentJobSpec):
        self.spec = spec
        self.task = build_dates(spec.task)
        self.device = torch.device(spec.device)
        torch.manual_seed(spec.task.seed)
        self.config = model_config(self.task, spec.model)
        self.model = Seq2Seq(self.config).to(self.device)
        self.baseline = Seq2Seq(baseline_config(self.config)).to(self.device)
        to, t = self.device, self.task
        self.train = (t.train_x.to(to), t.train_x_len, t.train_y.to(to))
        self.val = (
            t.val_x[:EVAL_LIMIT].to(to),
            t.val_x_len[:EVAL_LIMIT],
            t.val_y[:EVAL_LIMIT].to(to),
        )
        self.n_train = len(t.train_x)
        self.metric_name = "exact match"

    def parameters(self) -> list[Tensor]:
        return [*self.model.parameters(), *self.baseline.parameters()]

    def loss(self, batch: Tensor) -> Tensor:
        x, lengths, y = (part[batch.to(part.device)] for part in self.train)
        self.model.train(), self.baseline.train()
        main = teacher_forced_loss(self.model, x, lengths, y)
        base = teacher_forced_loss(self.baseline, x, lengths, y)
        return main + (base - base.detach())  # the attention model's value, both gradients

    def evaluate(self) -> dict[str, float]:
        out = {}
        for prefix, model in (("", self.model), (f"{BASELINE} ", self.baseline)):
            val_loss, exact, tokens = evaluate_model(model, *self.val)
            train_loss, train_exact, _ = evaluate_model(
                model, *(p[:EVAL_LIMIT] for p in self.train)
            )
            out |= {
                f"{prefix}val_loss": val_loss,
                f"{prefix}val_metric": exact,
                f"{prefix}train_loss": train_loss,
                f"{prefix}train_metric": train_exact,
                f"{prefix}{TOKEN_ACCURACY}": tokens,
            }
        return out

    def snapshot(self) -> RecurrentSnapshot:
        self.model.eval()
        p = self.task.probe
        x, lengths, y = (
            self.task.val_x[p : p + 1],
            self.task.val_x_len[p : p + 1],
            self.task.val_y[p : p + 1],
        )
        with torch.no_grad():
            align = alignment(self.model, x.to(self.device), lengths, y[:, :-1].to(self.device))
        return RecurrentSnapshot(
            align[0].cpu().numpy(), state_arrays(self.model), state_arrays(self.baseline)
        )


def teacher_forced_loss(model: nn.Module, x: Tensor, lengths: Tensor, y: Tensor) -> Tensor:
    logits = model(x, lengths, y[:, :-1])  # (B, Tout, V)
    return F.cross_entropy(logits.flatten(0, 1), y[:, 1:].flatten(), ignore_index=PAD)


def evaluate_model(
    model: nn.Module, x: Tensor, lengths: Tensor, y: Tensor
) -> tuple[float, float, float]:
    """(teacher-forced loss, exact match of greedy decoding, per-token accuracy)."""
    model.eval()
    with torch.no_grad():
        loss = float(teacher_forced_loss(model, x, lengths, y))
        ids, _ = greedy_decode(model, x, lengths, BOS, EOS, y.shape[1] - 1)
    target = y[:, 1:]
    return loss, float(exact_rows(ids, target).float().mean()), token_accuracy(ids, target)


PRESETS: dict[str, tuple[DateTaskSpec, Seq2SeqConfig, TrainConfig]] = {
    "Dates: Bahdanau (additive, 2-way GRU)": (
        DateTaskSpec("dates"),
        Seq2SeqConfig(
            d_embed=32, d_hidden=64, cell="gru", bidirectional=True, attention="additive"
        ),
        preset_train(600, 5e-3),
    ),
    "Dates: Luong (dot, 1-way GRU)": (
        DateTaskSpec("dates"),
        Seq2SeqConfig(d_embed=32, d_hidden=64, cell="gru", bidirectional=False, attention="dot"),
        preset_train(600, 5e-3),
    ),
    "Reverse: additive, 2-way GRU": (
        DateTaskSpec("reverse"),
        Seq2SeqConfig(
            d_embed=32, d_hidden=64, cell="gru", bidirectional=True, attention="additive"
        ),
        preset_train(600, 5e-3),
    ),
}
