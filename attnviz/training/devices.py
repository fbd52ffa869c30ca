"""Which torch devices this machine offers (CPU always; CUDA and MPS when present).

The sidebar asks on every page, including the home page of a server that has just started, so
the answer must not cost torch's import (1–2 s): a CPU-only build of torch says so in its
`torch/version.py` (`cuda = None`), which is read as text; only a build that could use a GPU
is imported and asked.
"""

from __future__ import annotations

import functools
import importlib.util
import platform
import re
import sys
from pathlib import Path


def _build_has_gpu_support() -> bool:
    """Whether the installed torch was built for CUDA / ROCm (read without importing torch)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return False
    version = Path(spec.submodule_search_locations[0]) / "version.py"
    try:
        text = version.read_text()
    except OSError:
        return True  # unknown: ask torch itself
    built_for = re.findall(r"^(?:cuda|hip|rocm)\b[^=]*=\s*(.+)$", text, flags=re.M)
    return any(value.strip() != "None" for value in built_for)


def _may_have_mps() -> bool:
    return sys.platform == "darwin" and platform.machine() == "arm64"


@functools.cache
def available_devices() -> list[str]:
    """Device names usable with torch.device, CPU first (computed once per process)."""
    if "torch" not in sys.modules and not (_build_has_gpu_support() or _may_have_mps()):
        return ["cpu"]
    import torch

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
