"""Images as sequences of patches (seed 004: z_i is m patches × d): patchify and its inverse.

Patch order is row-major over the patch grid (patch index = row · grid + col); within a patch the
features are in (C, p, p) order, so each patch is one row x_ij of z_i.
"""

from __future__ import annotations

from torch import Tensor


def patch_grid(size: int, patch: int) -> int:
    """Patches along one side of a size × size image (the patch must divide the size)."""
    if patch < 1 or size % patch:
        raise ValueError(f"a patch of {patch} pixels does not divide an image of {size} pixels")
    return size // patch


def patchify(images: Tensor, patch: int) -> Tensor:
    """images (B, C, H, W) with H = W -> patches (B, m, C·p·p), m = (H / p)²."""
    b, c, h, w = images.shape
    g = patch_grid(h, patch)
    if h != w:
        raise ValueError(f"images must be square; got {h}×{w}")
    x = images.reshape(b, c, g, patch, g, patch)  # (B, C, gr, p, gc, p)
    return x.permute(0, 2, 4, 1, 3, 5).reshape(b, g * g, c * patch * patch)


def unpatchify(patches: Tensor, patch: int, channels: int) -> Tensor:
    """patches (B, m, C·p·p) -> images (B, C, H, W): the inverse of `patchify`."""
    b, m, _ = patches.shape
    g = round(m**0.5)
    if g * g != m:
        raise ValueError(f"{m} patches do not form a square grid")
    x = patches.reshape(b, g, g, channels, patch, patch)  # (B, gr, gc, C, p, p)
    return x.permute(0, 3, 1, 4, 2, 5).reshape(b, channels, g * patch, g * patch)
