"""Identity hook points and `run_with_cache`: how models expose their attention.

A model places `HookPoint()` modules where an interesting tensor flows (scores, weights).
They do nothing on their own; `run_with_cache` attaches forward hooks to every HookPoint,
runs the model once and returns `(output, cache)` with the tensors keyed by module name.
A hook may also replace the tensor (ablation) through `run_with_hooks`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch
from torch import Tensor, nn

HookFn = Callable[[Tensor, str], Tensor | None]


class HookPoint(nn.Identity):
    """An identity module that marks a tensor worth capturing or editing."""


def hook_points(model: nn.Module) -> dict[str, HookPoint]:
    """All HookPoints of `model`, by their dotted module names."""
    return {name: mod for name, mod in model.named_modules() if isinstance(mod, HookPoint)}


def model_is_capturing(model: nn.Module) -> bool:
    """True while any HookPoint of `model` has a hook attached (models then skip fused fast paths)."""
    return any(mod._forward_hooks for mod in hook_points(model).values())


@contextmanager
def hooks_attached(model: nn.Module, fns: dict[str, HookFn]) -> Iterator[None]:
    """Attach `fns[name](tensor, name)` to the named HookPoints for the duration of the block."""
    points = hook_points(model)
    unknown = set(fns) - set(points)
    if unknown:
        raise KeyError(f"no hook point named {sorted(unknown)}")
    handles = [
        points[name].register_forward_hook(lambda _m, _i, out, n=name, f=fn: f(out, n))
        for name, fn in fns.items()
    ]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def run_with_cache(
    model: nn.Module, *args, names: Callable[[str], bool] | None = None, **kwargs
) -> tuple[object, dict[str, Tensor]]:
    """Run `model(*args, **kwargs)` and capture every HookPoint's tensor (detached).

    `names` filters which hook points are kept. Returns (output, {hook name: tensor}).
    """
    cache: dict[str, Tensor] = {}

    def keep(tensor: Tensor, name: str) -> None:
        cache[name] = tensor.detach()

    wanted = [n for n in hook_points(model) if names is None or names(n)]
    with hooks_attached(model, {n: keep for n in wanted}), torch.no_grad():
        out = model(*args, **kwargs)
    return out, cache


def run_with_hooks(model: nn.Module, fns: dict[str, HookFn], *args, **kwargs) -> object:
    """Run the model with hooks that may return a replacement tensor (e.g. a zeroed head)."""
    with hooks_attached(model, fns):
        return model(*args, **kwargs)
