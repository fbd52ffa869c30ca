"""The circuits experiments (issue 28) trained on one CPU core, as a class would watch them.

    python -m benchmarks.circuits [--skip-grokking]

Prints, per induction preset (1 and 2 layers): seconds, the step of the phase change (the
repeated copy's loss falling fastest below the first copy's), each head's final previous-token
and induction scores, the in-context losses and the loss with the best layer-1 head zeroed;
steps/s of the engine's two-layer model against a plain PyTorch attention-only model of the same
size (nn.MultiheadAttention, same data and optimizer); grokking's step and seconds to validation
accuracy ≥ 95 %; and per attention variant, with and without BOS, each head's final weight on
position 0 and the loss when a sliding window evicts the first token.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from attnviz.topics.live import train
from attnviz.topics.watch_circuits.grokking import grokking_step
from attnviz.topics.watch_circuits.induction import induction_bump, repeated_copy_loss
from attnviz.topics.watch_circuits.params import GROKKING, INDUCTION, SINKS
from attnviz.topics.watch_circuits.scene import SCENE, preset_jobs
from attnviz.topics.watch_circuits.sinks import eviction_losses, sink_shares

INDUCTION_PRESETS = preset_jobs(INDUCTION)  # the page's presets, as their Start submits them
GROKKING_PRESETS = preset_jobs(GROKKING)
SINK_PRESETS = {  # each sink preset, without and with a BOS token
    f"{name}, {'BOS' if bos else 'no BOS'}": SCENE.config(
        SCENE.values(SCENE.table.presets[name], ci_bos=bos)
    )
    for name in preset_jobs(SINKS)
    for bos in (False, True)
}


def heads(values: np.ndarray) -> str:
    return "  ".join(
        f"L{li}H{h} {v:.2f}" for li, row in enumerate(values) for h, v in enumerate(row)
    )


def timed(job, **kw):
    start = time.perf_counter()
    run = train(job, threads=1, **kw)
    return run, time.perf_counter() - start


def induction() -> None:
    for name, job in INDUCTION_PRESETS.items():
        run, seconds = timed(job)
        snap = run.snapshot
        scores = snap.scores
        model, data = run.restore(), job.spec.data.build(512, 1)
        layer = model.config.n_layer - 1
        best = int(np.argmax(scores["induction"][layer]))
        ablated = repeated_copy_loss(model, data, [(layer, best)])
        print(
            f"induction, {name}: {seconds:.1f} s for {job.train.steps} steps, phase change at step "
            f"{induction_bump(run.snapshots)}"
        )
        print(
            f"  loss first copy {snap['loss_first_copy']:.2f}, repeated copy "
            f"{snap['loss_repeated_copy']:.2f}; zeroing L{layer}H{best}: "
            f"repeated copy {ablated:.2f}"
        )
        print(f"  previous-token  {heads(scores['previous'])}")
        print(f"  induction       {heads(scores['induction'])}")


class PlainBlock(nn.Module):
    def __init__(self, d: int, h: int):
        super().__init__()
        self.ln, self.attn = nn.LayerNorm(d), nn.MultiheadAttention(d, h, batch_first=True)

    def forward(self, x, mask):
        z = self.ln(x)
        return x + self.attn(z, z, z, attn_mask=mask, need_weights=False)[0]


class PlainModel(nn.Module):
    """A plain PyTorch attention-only transformer of the preset's size."""

    def __init__(self, vocab: int, t: int, d: int, h: int, layers: int):
        super().__init__()
        self.embed, self.pos = nn.Embedding(vocab, d), nn.Parameter(torch.randn(t, d))
        self.blocks = nn.ModuleList(PlainBlock(d, h) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.embed(ids) + self.pos[:t]
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)  # True = may not attend
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.ln(x))


def steps_per_second(params, loss_fn, n_train: int, steps: int = 300, batch: int = 64) -> float:
    opt = torch.optim.AdamW(params, lr=1e-2)
    gen = torch.Generator().manual_seed(0)
    start = time.perf_counter()
    for _ in range(steps):
        loss = loss_fn(torch.randperm(n_train, generator=gen)[:batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return steps / (time.perf_counter() - start)


def against_plain() -> None:
    torch.set_num_threads(1)
    job = INDUCTION_PRESETS["Induction: 2 layers"]
    ours = job.spec.build()
    c = ours.config
    plain = PlainModel(c.vocab_size, c.max_len, c.d_model, c.n_head, c.n_layer)
    ids = ours.train_ids

    def plain_loss(batch):
        logits = plain(ids[batch])
        return F.cross_entropy(logits[:, :-1].flatten(0, 1), ids[batch][:, 1:].flatten())

    a = steps_per_second(ours.parameters(), ours.loss, ours.n_train)
    b = steps_per_second(list(plain.parameters()), plain_loss, ours.n_train)
    n_ours = sum(p.numel() for p in ours.parameters())
    n_plain = sum(p.numel() for p in plain.parameters())
    print(
        f"steps/s, 2 layers: engine {a:.0f} ({n_ours} parameters), plain PyTorch {b:.0f} "
        f"({n_plain} parameters): ratio {a / b:.2f}"
    )


def grokking() -> None:
    for name, job in GROKKING_PRESETS.items():
        seen: dict[str, float] = {}
        start = time.perf_counter()

        def on_eval(trainer, seen=seen, start=start):
            ev = trainer.last_evaluation
            if "step" not in seen and ev.val_metric >= 0.95:
                seen.update(step=ev.step, seconds=time.perf_counter() - start)
            if "train" not in seen and ev.train_metric >= 0.99:
                seen["train"] = ev.step

        run, seconds = timed(job, on_eval=on_eval)
        h = run.history
        step = grokking_step(h.eval_step, h.val_metric)
        at = f"step {step}, {seen['seconds']:.0f} s" if step is not None else "never"
        print(
            f"grokking, {name}: train accuracy ≥ 99 % at step {seen.get('train')}, "
            f"validation ≥ 95 % at {at} ({seconds:.0f} s for {job.train.steps} steps)"
        )
        extra = h.extra[-1]
        print(
            f"  final: validation {h.val_metric[-1]:.3f}, weight norm {extra['weight_norm']:.1f} "
            f"(start {h.extra[0]['weight_norm']:.1f}), key frequencies "
            f"{run.snapshot['key_frequencies']} (start {int(h.extra[0]['key_frequencies'])} of "
            f"{len(run.snapshot['spectrum']) - 1})"
        )


def sinks() -> None:
    for name, job in SINK_PRESETS.items():
        run, seconds = timed(job)
        _, shares = sink_shares(run.snapshots)
        losses = eviction_losses(run.restore(), job.spec.data.build(512, 1))
        print(f"sinks, {name}: {seconds:.1f} s; weight on position 0: {heads(shares[-1])}")
        print("  loss past the window: " + ", ".join(f"{k} {v:.2f}" for k, v in losses.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-grokking", action="store_true")
    args = parser.parse_args()
    print(f"one CPU thread; torch {torch.__version__}; ln 32 = {math.log(32):.2f} nats (chance)")
    induction()
    against_plain()
    if not args.skip_grokking:
        grokking()
    sinks()


if __name__ == "__main__":
    main()
