"""The vision page's speed, on 2 CPU threads, batch 64, the digits preset's sizes (8 × 8 grey
images, patches of 2, 2 layers, 4 heads, d 48, AdamW).

1. Training steps/s of our TinyViT against a plain PyTorch ViT of identical size written here
   (F.scaled_dot_product_attention), measured in the same run, interleaved, median of repeats:
   capture off (fused SDPA path), capture on (hooks on every layer's weights during the training
   forward), and forward + capture alone (`vit_attention`, what a snapshot does now and then).
2. The matched SmallCNN's training steps/s at the same batch.
3. Wall time and steps until validation accuracy ≥ 95 % on the digits preset with the page's
   Trainable (both models train side by side), for the ViT and for the CNN.

    python -m benchmarks.vision [--seconds 1.0] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from attnviz.core.hooks import hook_points, hooks_attached
from attnviz.data.images import ImageSetSpec, build_images
from attnviz.models.cnn import SmallCNN, cnn_matching
from attnviz.models.vit import TinyViT, ViTConfig, parameter_count, vit_attention
from attnviz.training.messages import RunStatus
from attnviz.training.trainer import Trainer

BATCH = 64
TARGET = 0.95


class ReferenceBlock(nn.Module):
    """Pre-LN block from PyTorch's own pieces: one fused qkv map, fused attention."""

    def __init__(self, d: int, heads: int, d_ff: int):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, d_ff), nn.GELU(), nn.Linear(d_ff, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        qkv = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, d // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, H, N, Dh)
        mixed = F.scaled_dot_product_attention(q, k, v)  # (B, H, N, Dh)
        x = x + self.out(mixed.transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.ln2(x))


class ReferenceViT(nn.Module):
    """A plain ViT of the same size: linear patch embedding, learned positions, class token."""

    def __init__(self, c: ViTConfig):
        super().__init__()
        self.patch, m = c.patch, c.n_patches
        self.embed = nn.Linear(c.channels * c.patch**2, c.d_model)
        self.pos = nn.Parameter(torch.randn(m, c.d_model) * 0.02)
        self.cls = nn.Parameter(torch.zeros(1, 1, c.d_model))
        self.blocks = nn.Sequential(
            *[ReferenceBlock(c.d_model, c.n_head, c.d_ff) for _ in range(c.n_layer)]
        )
        self.ln_f, self.head = nn.LayerNorm(c.d_model), nn.Linear(c.d_model, c.n_classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        b, ch, h, _ = images.shape
        g, p = h // self.patch, self.patch
        x = images.reshape(b, ch, g, p, g, p).permute(0, 2, 4, 1, 3, 5).reshape(b, g * g, -1)
        x = self.embed(x) + self.pos  # (B, m, D)
        x = torch.cat([self.cls.expand(b, -1, -1), x], dim=1)  # (B, m + 1, D)
        return self.head(self.ln_f(self.blocks(x))[:, 0])  # (B, K)


def train_step(model: nn.Module, opt: torch.optim.Optimizer, x, y) -> None:
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def trainer_of(model: nn.Module, x, y, capture: bool = False) -> Callable[[], None]:
    """One training step of `model` as a call; with capture, every layer's weights are hooked."""
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    kept: dict[str, torch.Tensor] = {}
    names = [n for n in hook_points(model) if n.endswith("hook_weights")] if capture else []
    fns = {n: (lambda t, name: kept.__setitem__(name, t.detach())) for n in names}

    def step() -> None:
        with hooks_attached(model, fns):
            train_step(model, opt, x, y)

    return step


def rate(fn: Callable[[], None], seconds: float) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        count += 1
    return count / (time.perf_counter() - start)


def medians(fns: dict[str, Callable[[], None]], seconds: float, repeats: int) -> dict[str, float]:
    """Calls/s of each function: warm-up, then `repeats` rounds interleaved, median per name."""
    for fn in fns.values():
        for _ in range(10):
            fn()
    rounds = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            rounds[name].append(rate(fn, seconds))
    return {name: statistics.median(r) for name, r in rounds.items()}


def speed_table(seconds: float, repeats: int) -> None:
    images = build_images(ImageSetSpec("digits"))
    x, y = images.train_x[:BATCH], images.train_y[:BATCH]  # (64, 1, 8, 8), (64,)
    config = ViTConfig(image_size=8, channels=1, n_classes=10, patch=2)
    torch.manual_seed(0)
    ours, ref = TinyViT(config), ReferenceViT(config)
    cnn = SmallCNN(cnn_matching(parameter_count(ours), 8, 1, 10))
    counts = {m: parameter_count(m) for m in (ours, ref, cnn)}
    print(
        f"parameters: ours {counts[ours]:,}, reference {counts[ref]:,}, CNN {counts[cnn]:,}"
        f" (width {cnn.config.width}, {cnn.config.stages} stages)"
    )
    train = medians(
        {
            "reference": trainer_of(ref, x, y),
            "off": trainer_of(ours, x, y),
            "on": trainer_of(ours, x, y, capture=True),
            "cnn": trainer_of(cnn, x, y),
        },
        seconds,
        repeats,
    )
    forward = forward_rates(ours, ref, x, seconds, repeats)
    print_speeds(train, forward)


def forward_rates(ours: nn.Module, ref: nn.Module, x, seconds: float, repeats: int) -> dict:
    """Forwards/s without gradients: reference, ours fused, ours with every layer captured."""
    ours.eval(), ref.eval()

    def plain(model):
        def fn():
            with torch.no_grad():
                model(x)

        return fn

    return medians(
        {"reference": plain(ref), "off": plain(ours), "on": lambda: vit_attention(ours, x)},
        seconds,
        repeats,
    )


def print_speeds(train: dict[str, float], forward: dict[str, float]) -> None:
    ref, fref = train["reference"], forward["reference"]
    rows = [
        ("training, plain PyTorch ViT (SDPA)", ref, 1.0, ""),
        ("training, ours, capture off (fused SDPA)", train["off"], train["off"] / ref, "≥ 0.8"),
        ("training, ours, capture on (weights hooked)", train["on"], train["on"] / ref, ""),
        ("training, SmallCNN (matched size)", train["cnn"], train["cnn"] / ref, ""),
        ("forward, plain PyTorch ViT (no grad)", fref, 1.0, ""),
        ("forward, ours, capture off", forward["off"], forward["off"] / fref, ""),
        ("forward + capture, ours (vit_attention)", forward["on"], forward["on"] / fref, ""),
    ]
    print(f"batch {BATCH}, 2 threads; calls/s are medians, ratios against the plain line above")
    print(f"{'what':<46} {'calls/s':>9} {'ratio':>7}   goal")
    for name, value, ratio, goal in rows:
        print(f"{name:<46} {value:>9.0f} {ratio:>7.2f}   {goal}")


def time_to_target() -> None:
    """Seconds and steps until the first evaluation at ≥ 95 % validation accuracy (ViT, CNN)."""
    try:
        from attnviz.topics.vision_patches.task import PRESETS, VisionJobSpec
    except ImportError:
        print("time to ≥ 95 % validation accuracy: task not available yet")
        return
    name = next(iter(PRESETS))
    data, vit, cfg = PRESETS[name]
    trainer = Trainer(VisionJobSpec(data, vit).build(), cfg)
    reached: dict[str, tuple[float, int]] = {}
    start = time.perf_counter()
    while trainer.status == RunStatus.RUNNING and len(reached) < 2:
        trainer.step()
        evaluation = trainer.last_evaluation
        if evaluation is None or evaluation.step != trainer.step_count:
            continue
        scores = {"ViT": evaluation.val_metric, "CNN": evaluation.extra.get("CNN val_metric")}
        for model, value in scores.items():
            if model not in reached and value is not None and value >= TARGET:
                reached[model] = (time.perf_counter() - start, trainer.step_count)
    print(f"preset '{name}', both models training side by side, {trainer.step_count} steps run:")
    for model in ("ViT", "CNN"):
        if model in reached:
            seconds, steps = reached[model]
            print(f"  {model}: ≥ 95 % validation accuracy after {seconds:.1f} s ({steps} steps)")
        else:
            print(f"  {model}: did not reach 95 % in {trainer.step_count} steps")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(2)
    speed_table(args.seconds, args.repeats)
    time_to_target()


if __name__ == "__main__":
    main()
