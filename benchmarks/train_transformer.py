"""The live-training page's speed.

1. Wall time until "reverse" on 8 tokens reaches ≥ 99 % validation token accuracy with the
   default preset, on 2 CPU threads (time to first evaluation at or above 99 %).
2. Training steps/s of our TinyTransformer against a plain PyTorch reference of identical size
   (nn.TransformerEncoder, pre-LN, fused attention), measured in this run: capture off (fused
   SDPA path) and capture on (hooks on every attention's weights, explicit softmax path).

    python -m benchmarks.train_transformer
"""

from __future__ import annotations

import time

import torch
import torch.nn.functional as F
from torch import nn

from attnviz.core.hooks import hook_points, hooks_attached
from attnviz.models.transformer import TinyTransformer
from attnviz.topics.train_transformer.task import (
    PRESETS,
    TransformerJobSpec,
    model_config,
)
from attnviz.training.trainer import Trainer

PRESET = "Reverse: 1 layer, 1 head"


def time_to_99() -> tuple[float, int]:
    task, model, cfg = PRESETS[PRESET]
    trainer = Trainer(TransformerJobSpec(task, model).build(), cfg)
    start = time.perf_counter()
    while trainer.status == "running":
        trainer.step()
        if (
            trainer.history.val_metric
            and trainer.history.val_metric[-1] >= 0.99
            and trainer.step_count
        ):
            return time.perf_counter() - start, trainer.step_count
    return float("nan"), trainer.step_count


class Reference(nn.Module):
    """Same sizes as our model, built from PyTorch's own layers."""

    def __init__(self, vocab: int, d: int, heads: int, d_ff: int, layers: int, max_len: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(max_len, d) * 0.1)
        layer = nn.TransformerEncoderLayer(
            d, heads, d_ff, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, ids):
        x = (
            self.embed(ids) * ids.new_tensor(self.pos.shape[1], dtype=torch.float).sqrt()
            + self.pos[: ids.shape[1]]
        )
        return self.head(self.ln_f(self.encoder(x)))


def steps_per_second(model: nn.Module, x, y, seconds: float = 3.0, capture: bool = False) -> float:
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    kept = {}
    fns = (
        {
            n: (lambda t, name: kept.__setitem__(name, t.detach()))
            for n in hook_points(model)
            if n.endswith("hook_weights")
        }
        if capture
        else {}
    )
    with hooks_attached(model, fns):
        for _ in range(10):  # warm-up
            _train_step(model, opt, x, y)
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            _train_step(model, opt, x, y)
            count += 1
    return count / (time.perf_counter() - start)


def _train_step(model, opt, x, y) -> None:
    logits = model(x)
    loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
    opt.zero_grad()
    loss.backward()
    opt.step()


def main() -> None:
    torch.set_num_threads(2)
    seconds, steps = time_to_99()
    print(
        f"reverse, 8 tokens, preset '{PRESET}', 2 threads: ≥ 99 % validation accuracy "
        f"after {seconds:.1f} s ({steps} steps); goal ≤ 20 s"
    )
    task_spec, model_spec, cfg = PRESETS[PRESET]
    trainable = TransformerJobSpec(task_spec, model_spec).build()
    conf = model_config(trainable.task, model_spec)
    x, y = trainable.train_x[: cfg.batch_size], trainable.train_y[: cfg.batch_size]
    torch.manual_seed(0)
    ours = TinyTransformer(conf)
    ref = Reference(
        conf.vocab_size, conf.d_model, conf.n_head, conf.d_ff, conf.n_layer, conf.max_len
    )
    ref_rate = steps_per_second(ref, x, y)
    off = steps_per_second(ours, x, y, capture=False)
    on = steps_per_second(ours, x, y, capture=True)
    print(f"{'model':<40} {'steps/s':>9} {'ratio':>7}   goal")
    print(f"{'nn.TransformerEncoder reference':<40} {ref_rate:>9.0f} {1.0:>7.2f}")
    print(f"{'ours, capture off (fused SDPA)':<40} {off:>9.0f} {off / ref_rate:>7.2f}   ≥ 0.9")
    print(f"{'ours, capture on (hooks on weights)':<40} {on:>9.0f} {on / ref_rate:>7.2f}   ≥ 0.8")


if __name__ == "__main__":
    main()
