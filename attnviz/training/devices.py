"""Which torch devices this machine offers (CPU always; CUDA and MPS when present)."""

from __future__ import annotations

import torch


def available_devices() -> list[str]:
    """Device names usable with torch.device, CPU first."""
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append("mps")
    return devices


def resolve_device(name: str | None) -> str:
    """`name` if this machine has it, else "cpu"."""
    return name if name in available_devices() else "cpu"
