"""The vision page's CNN in channels-last memory (how `SmallCNN` keeps its filters and reads its
images) against the same network in PyTorch's default layout, on one CPU thread: a training
step (forward, loss, backward) at batch 64 for each preset's image size, interleaved, median of
repeats, and the largest difference of their logits (the same values to float rounding).

    python -m benchmarks.cnn_layout [--repeats 5] [--steps 20]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn

from attnviz.models.cnn import CNNConfig, SmallCNN, cnn_for

BATCH = 64
SIZES = {  # preset -> (image size, channels, classes, first-stage width as the page matches it)
    "digits 8×8": (8, 1, 10, 44),
    "MNIST 28×28": (28, 1, 10, 28),
    "shapes 32×32": (32, 3, 4, 20),
}


def default_layout(model: SmallCNN) -> nn.Module:
    """The same weights in PyTorch's default (channels-first) layout, fed as given."""
    plain = copy.deepcopy(model).to(memory_format=torch.contiguous_format)

    def forward(images: torch.Tensor) -> torch.Tensor:
        return plain.head(plain.features(images.contiguous()).flatten(1))

    plain.forward = forward
    return plain


def step_ms(model: nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        model.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
    return (time.perf_counter() - start) / steps * 1000


def measure(config: CNNConfig, repeats: int, steps: int) -> tuple[float, float, float]:
    """(channels-last ms, default ms, largest logit difference) for one image size."""
    torch.manual_seed(0)
    ours = SmallCNN(config)
    plain = default_layout(ours)
    x = torch.randn(BATCH, config.channels, config.image_size, config.image_size)
    y = torch.randint(0, config.n_classes, (BATCH,))
    for model in (ours, plain):
        step_ms(model, x, y, 3)  # warm-up
    times: dict[str, list[float]] = {"ours": [], "plain": []}
    for _ in range(repeats):
        times["ours"].append(step_ms(ours, x, y, steps))
        times["plain"].append(step_ms(plain, x, y, steps))
    with torch.no_grad():
        gap = float((ours(x) - plain(x)).abs().max())
    return statistics.median(times["ours"]), statistics.median(times["plain"]), gap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name, (size, channels, classes, width) in SIZES.items():
        config = cnn_for(size, channels, classes, width)
        ours, plain, gap = measure(config, args.repeats, args.steps)
        print(
            f"{name}: channels-last {ours:.1f} ms/step, default layout {plain:.1f} ms/step "
            f"(ratio {ours / plain:.2f}), largest logit difference {gap:.1e}"
        )


if __name__ == "__main__":
    main()
