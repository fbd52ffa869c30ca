"""A ViT in DINOv2's layout (Oquab et al. 2023; Hugging Face's `Dinov2Model`), for real weights.

An image (B, 3, H, W), normalised with ImageNet's mean and std, is cut into p × p patches by one
strided convolution (the same as embedding each flattened patch linearly), a class token is put
in front, and learned positions are added: the table was trained on a 37 × 37 grid (518 px) and
is resized bicubically to the image's grid (16 × 16 at 224 px), the class token's own position
unchanged. Then pre-LN blocks with LayerScale (a learned per-channel factor on each branch):

    x = x + γ₁ ⊙ attn(LN(x)),   x = x + γ₂ ⊙ MLP(LN(x)),   MLP = fc2(GELU(fc1(·)))  (exact GELU)

and a final LayerNorm. The attention is models.attention_layer.MultiHeadSelfAttention, the one
attention path, so `run_with_cache(model, pixels)` captures `blocks.{i}.attn.hook_weights`
(B, H, N, N), N = 1 + grid², class token at index 0, patches in reading order, and `hook_resid`
(B, N, D), the residual stream before the final norm (where the artifact tokens' norms stand out).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnviz.core.hooks import HookPoint, run_with_cache
from attnviz.models.attention_layer import MultiHeadSelfAttention, SelfAttentionConfig
from attnviz.models.transformer import attention_maps

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


@dataclass(frozen=True)
class DinoConfig:
    image_size: int = 224  # the side of the square input
    patch: int = 14
    d_model: int = 384
    n_head: int = 6
    n_layer: int = 12
    d_ff: int = 1536
    eps: float = 1e-6  # every LayerNorm's
    pos_grid: int = 37  # the side of the grid the position table was trained on

    @property
    def grid(self) -> int:
        """Patches along one side of the input."""
        return self.image_size // self.patch

    @property
    def n_patches(self) -> int:
        return self.grid**2


class DinoBlock(nn.Module):
    """x + γ₁ ⊙ attn(LN(x)), then x + γ₂ ⊙ MLP(LN(x))."""

    def __init__(self, config: DinoConfig):
        super().__init__()
        d = config.d_model
        self.ln1 = nn.LayerNorm(d, eps=config.eps)
        self.attn = MultiHeadSelfAttention(SelfAttentionConfig(d, config.n_head))
        self.scale1 = nn.Parameter(torch.ones(d))  # γ₁ (LayerScale)
        self.ln2 = nn.LayerNorm(d, eps=config.eps)
        self.fc1, self.act, self.fc2 = (
            nn.Linear(d, config.d_ff),
            nn.GELU(),
            nn.Linear(config.d_ff, d),
        )
        self.scale2 = nn.Parameter(torch.ones(d))  # γ₂

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.scale1 * self.attn(self.ln1(x))  # (B, N, D)
        return x + self.scale2 * self.fc2(self.act(self.fc1(self.ln2(x))))


class DinoViT(nn.Module):
    """Normalised pixels (B, 3, H, W) -> final features (B, 1 + grid², D), class token first."""

    def __init__(self, config: DinoConfig):
        super().__init__()
        self.config = config
        d, p = config.d_model, config.patch
        self.patch_embed = nn.Conv2d(3, d, kernel_size=p, stride=p)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_cls = nn.Parameter(torch.zeros(1, 1, d))  # the class token's position
        self.pos_table = nn.Parameter(torch.zeros(1, config.pos_grid**2, d))  # (1, 37², D)
        self.blocks = nn.ModuleList(DinoBlock(config) for _ in range(config.n_layer))
        self.hook_resid = HookPoint()  # (B, N, D) the residual stream before the final norm
        self.ln_f = nn.LayerNorm(d, eps=config.eps)

    def positions(self, rows: int, cols: int) -> Tensor:
        """(1, 1 + rows·cols, D): the class token's position, then the table resized bicubically
        (half-pixel centres, no antialiasing) to a rows × cols grid, in reading order."""
        side, d = self.config.pos_grid, self.config.d_model
        table = self.pos_table.reshape(1, side, side, d).permute(0, 3, 1, 2)  # (1, D, 37, 37)
        if (rows, cols) != (side, side):
            table = nn.functional.interpolate(
                table, size=(rows, cols), mode="bicubic", align_corners=False, antialias=False
            )  # (1, D, rows, cols)
        grid = table.permute(0, 2, 3, 1).reshape(1, rows * cols, d)
        return torch.cat([self.pos_cls, grid], dim=1)

    def tokens(self, pixels: Tensor) -> Tensor:
        """(B, 3, H, W) -> (B, 1 + m, D): class token, then the patches, positions added."""
        x = self.patch_embed(pixels)  # (B, D, H/p, W/p)
        rows, cols = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2)  # (B, m, D)
        x = torch.cat([self.cls.expand(len(x), -1, -1), x], dim=1)  # (B, 1 + m, D)
        return x + self.positions(rows, cols)

    def forward(self, pixels: Tensor) -> Tensor:
        x = self.tokens(pixels)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(self.hook_resid(x))  # (B, N, D)


def dino_attention(model: DinoViT, pixels: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(final features (B, N, D), every layer's attention weights (L, B, H, N, N), the residual
    stream before the final norm (B, N, D))."""
    wanted = ("hook_weights", "hook_resid")
    out, cache = run_with_cache(model, pixels, names=lambda n: n.endswith(wanted))
    return out, attention_maps(cache, model.config.n_layer), cache["hook_resid"]
