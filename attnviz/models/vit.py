"""A tiny Vision Transformer (Dosovitskiy et al. 2020; seed 003): patches, positions, class token.

An image (B, C, H, W) is cut into m = (H/p)² patches (core.patches, row-major), each flattened
patch is embedded by one linear map (z_i W_e, seed 004's m × d matrix), positions are added
(learned, 2-D sinusoidal, or none), a class token is put in front (pooling "cls") or the patch
outputs are averaged (pooling "mean"), and pre-LN blocks (models.transformer.Block, the one
attention path) mix them. `run_with_cache(model, images)` captures `blocks.{i}.attn.hook_weights`
(B, H, N, N) with N = m + 1 (class token at index 0) or N = m.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn

from attnviz.core.hooks import run_with_cache
from attnviz.core.patches import patchify
from attnviz.core.positional import sinusoidal_2d
from attnviz.models.transformer import Block, TransformerConfig, attention_maps

VIT_POSITIONAL = ("learned", "sinusoidal", "none")
POOLING = ("cls", "mean")


@dataclass(frozen=True)
class ViTConfig:
    image_size: int = 8
    channels: int = 1
    patch: int = 2
    n_classes: int = 10
    n_layer: int = 2
    n_head: int = 4
    d_model: int = 48
    d_ff: int = 96
    positional: str = "learned"  # one of VIT_POSITIONAL
    pooling: str = "cls"  # one of POOLING
    dropout: float = 0.0

    @property
    def grid(self) -> int:
        """Patches along one side."""
        return self.image_size // self.patch

    @property
    def n_patches(self) -> int:
        return self.grid**2

    @property
    def n_special(self) -> int:
        """Tokens before the patches: 1 (the class token) or 0."""
        return 1 if self.pooling == "cls" else 0

    def problems(self) -> list[str]:
        """Readable reasons this configuration cannot be built (empty if it can)."""
        out = []
        if self.patch < 1 or self.image_size % self.patch:
            out.append(f"a patch of {self.patch} pixels does not divide {self.image_size} pixels")
        if self.d_model % self.n_head:
            out.append(f"d_model {self.d_model} is not divisible by {self.n_head} heads")
        if self.positional == "sinusoidal" and self.d_model % 4:
            out.append("2-D sinusoidal positions need d_model divisible by 4")
        if self.positional not in VIT_POSITIONAL:
            out.append(f"positions must be one of {', '.join(VIT_POSITIONAL)}")
        if self.pooling not in POOLING:
            out.append(f"pooling must be one of {', '.join(POOLING)}")
        if min(self.n_layer, self.n_head, self.d_model, self.n_classes, self.channels) < 1:
            out.append("sizes must be at least 1")
        return out

    def blocks(self) -> TransformerConfig:
        """The config of the transformer blocks (encoder: no mask)."""
        return TransformerConfig(
            n_layer=self.n_layer,
            n_head=self.n_head,
            d_model=self.d_model,
            d_ff=self.d_ff,
            dropout=self.dropout,
            max_len=self.n_patches + self.n_special,
        )

    def to_dict(self) -> dict:
        return asdict(self)


class TinyViT(nn.Module):
    """Images (B, C, H, W) -> class logits (B, n_classes)."""

    def __init__(self, config: ViTConfig):
        super().__init__()
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.config = config
        d, m = config.d_model, config.n_patches
        self.embed = nn.Linear(config.channels * config.patch**2, d)  # one patch -> one token
        if config.positional == "learned":
            self.pos = nn.Parameter(torch.randn(m, d) * 0.02)
        elif config.positional == "sinusoidal":
            self.register_buffer("pos", torch.as_tensor(sinusoidal_2d(config.grid, d)))
        else:  # "none": attention alone cannot tell where a patch was
            self.register_buffer("pos", torch.zeros(m, d))
        self.cls = nn.Parameter(torch.zeros(1, 1, d)) if config.pooling == "cls" else None
        self.blocks = nn.ModuleList(Block(config.blocks()) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, config.n_classes)
        self.drop = nn.Dropout(config.dropout)

    def tokens(self, images: Tensor) -> Tensor:
        """The sequence the blocks read: (B, N, D), class token first when pooling is "cls"."""
        x = self.embed(patchify(images, self.config.patch)) + self.pos  # (B, m, D)
        if self.cls is not None:
            x = torch.cat([self.cls.expand(len(x), -1, -1), x], dim=1)  # (B, m + 1, D)
        return self.drop(x)

    def forward(self, images: Tensor) -> Tensor:
        x = self.tokens(images)
        for block in self.blocks:
            x = block(x, None)
        x = self.ln_f(x)  # (B, N, D)
        pooled = x[:, 0] if self.cls is not None else x.mean(1)  # (B, D)
        return self.head(pooled)  # (B, n_classes)


def vit_attention(model: TinyViT, images: Tensor) -> tuple[Tensor, Tensor]:
    """(logits (B, K), attention weights (L, B, H, N, N)) with every layer captured."""
    logits, cache = run_with_cache(model, images, names=lambda n: n.endswith("hook_weights"))
    return logits, attention_maps(cache, model.config.n_layer)


def parameter_count(model: nn.Module) -> int:
    """Trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
