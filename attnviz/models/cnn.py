"""A small convolutional network (seed 003: learned 3×3 filters, pooling, a linear head).

The ViT's counterpart on the vision page: locality and translation equivariance are built in
(every unit sees only its receptive field), where the ViT must learn them. `conv_layers()` lists
each layer's (kernel, stride), from which a receptive field follows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn


@dataclass(frozen=True)
class CNNConfig:
    image_size: int = 8
    channels: int = 1
    n_classes: int = 10
    width: int = 16  # filters in the first stage; the second has twice as many
    stages: int = 2  # conv 3×3 + ReLU + max-pool 2×2 each (fewer when the image is small)

    def problems(self) -> list[str]:
        out = []
        if self.image_size < 2**self.stages:
            out.append(f"{self.stages} pooling stages need images of at least {2**self.stages} px")
        if min(self.width, self.stages, self.channels, self.n_classes) < 1:
            out.append("sizes must be at least 1")
        return out

    def to_dict(self) -> dict:
        return asdict(self)


class SmallCNN(nn.Module):
    """Images (B, C, H, W) -> class logits (B, n_classes)."""

    def __init__(self, config: CNNConfig):
        super().__init__()
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.config = config
        layers: list[nn.Module] = []
        c_in = config.channels
        for stage in range(config.stages):
            c_out = config.width * 2**stage
            layers += [nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
            c_in = c_out
        self.features = nn.Sequential(*layers)  # (B, C', H / 2^s, W / 2^s)
        side = config.image_size // 2**config.stages
        self.head = nn.Linear(c_in * side * side, config.n_classes)  # reads where, too
        # channels-last filters and images: a training step 26-30 % faster on one core for
        # every preset's images, the same values to float rounding (benchmarks/cnn_layout.py)
        self.to(memory_format=torch.channels_last)

    def forward(self, images: Tensor) -> Tensor:
        images = images.contiguous(memory_format=torch.channels_last)  # (B, C, H, W)
        return self.head(self.features(images).flatten(1))  # (B, K)

    def conv_layers(self) -> list[tuple[int, int]]:
        """(kernel, stride) of every layer that widens the receptive field, in order."""
        out = []
        for layer in self.features:
            if isinstance(layer, nn.Conv2d):
                out.append((layer.kernel_size[0], layer.stride[0]))
            elif isinstance(layer, nn.MaxPool2d):
                out.append((layer.kernel_size, layer.stride))
        return out


def cnn_for(image_size: int, channels: int, n_classes: int, width: int = 16) -> CNNConfig:
    """A CNN config for these images: two stages, or three for images of 32 px and more."""
    stages = 3 if image_size >= 32 else 2
    return CNNConfig(image_size, channels, n_classes, width, stages)


def cnn_matching(params: int, image_size: int, channels: int, n_classes: int) -> CNNConfig:
    """The CNN for these images whose parameter count is closest to `params` (a fair match for a
    ViT of that size), trying first-stage widths 4…64."""
    from attnviz.models.vit import parameter_count  # one counting rule for both models

    def count(width: int) -> int:
        return parameter_count(SmallCNN(cnn_for(image_size, channels, n_classes, width)))

    best = min(range(2, 65, 2), key=lambda w: abs(count(w) - params))
    return cnn_for(image_size, channels, n_classes, best)
