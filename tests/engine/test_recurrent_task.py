"""The recurrence run: both models learn from the same batches, the reported loss is the
attention model's, the baseline's numbers reach the curves, snapshots restore both models, (the
dates preset against the baseline: tests/engine/test_recurrent_try_this.py)."""

from __future__ import annotations

import numpy as np
import torch

from attnviz.data.dates import DateTaskSpec
from attnviz.figures.training import companions
from attnviz.models.rnn import Seq2SeqConfig
from attnviz.topics.recurrent.task import BASELINE, RecurrentJobSpec, teacher_forced_loss
from attnviz.training.trainer import TrainConfig, Trainer

SPEC = RecurrentJobSpec(DateTaskSpec(n_train=300, n_val=60), Seq2SeqConfig(d_embed=16, d_hidden=16))
SHORT = TrainConfig(
    optimizer="adam", lr=5e-3, batch_mode="minibatch", steps=10, eval_every=5, snapshot_every=5
)


def test_the_reported_loss_is_the_attention_models_and_both_models_learn():
    trainable = SPEC.build()
    batch = torch.arange(8)
    loss = trainable.loss(batch)
    x, lengths, y = (part[batch] for part in trainable.train)
    assert torch.isclose(loss, teacher_forced_loss(trainable.model, x, lengths, y), atol=1e-6)
    loss.backward()
    assert all(p.grad is not None for p in trainable.baseline.parameters() if p.requires_grad)
    assert trainable.baseline.config.attention == "none"


def test_a_run_scores_both_models_and_snapshots_restore_them():
    trainer = Trainer(SPEC.build(), SHORT).run()
    assert companions(trainer.history) == [BASELINE]
    assert {"token accuracy", f"{BASELINE} val_metric"} <= set(trainer.history.extra[-1])
    _, snap = trainer.snapshots[-1]
    task = trainer.task.task
    assert snap.alignment.shape == (task.max_out + 1, task.val_x.shape[1])
    np.testing.assert_allclose(snap.alignment.sum(-1), 1, atol=1e-5)
    pair = SPEC.restore(snap)
    x, lengths, y = (part[:4] for part in trainer.task.val)
    trainer.task.model.eval()
    with torch.no_grad():
        assert torch.allclose(
            pair.model(x, lengths, y[:, :-1]), trainer.task.model(x, lengths, y[:, :-1]), atol=1e-5
        )
