"""Identity hook points and `run_with_cache`: how models expose their attention.

This module owns the one hook mechanism of the engine. A model places `HookPoint()` modules
where an interesting tensor flows (q, k, scores, weights, per-head output). A HookPoint keeps
its own list of hooks (it never reads torch's private `_forward_hooks`): with none attached it
returns its input unchanged; each attached hook sees the tensor and may return a replacement.
`run_with_cache` attaches a recording hook to every HookPoint, runs the model once and returns
`(output, cache)` keyed by module name; `run_with_hooks` attaches hooks that may edit (ablation).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch
from torch import Tensor, nn

HookFn = Callable[[Tensor, str], Tensor | None]
PointHook = Callable[[Tensor], Tensor | None]
_ids = itertools.count()


class HookHandle:
    """Returned by `HookPoint.add_hook`; `remove()` detaches the hook (twice is harmless)."""

    def __init__(self, point: HookPoint, hook_id: int):
        self._point, self._id = point, hook_id

    def remove(self) -> None:
        self._point._hooks.pop(self._id, None)


class HookPoint(nn.Identity):
    """An identity module that marks a tensor worth capturing or editing; owns its hooks."""

    def __init__(self) -> None:
        super().__init__()
        self._hooks: dict[int, PointHook] = {}

    def add_hook(self, fn: PointHook) -> HookHandle:
        """Call `fn(tensor)` on every forward; a non-None result replaces the tensor."""
        hook_id = next(_ids)
        self._hooks[hook_id] = fn
        return HookHandle(self, hook_id)

    @property
    def has_hooks(self) -> bool:
        return bool(self._hooks)

    def forward(self, x: Tensor) -> Tensor:
        for fn in list(self._hooks.values()):
            replaced = fn(x)
            if replaced is not None:
                x = replaced
        return x


def hook_points(model: nn.Module) -> dict[str, HookPoint]:
    """All HookPoints of `model`, by their dotted module names."""
    return {name: mod for name, mod in model.named_modules() if isinstance(mod, HookPoint)}


def model_is_capturing(model: nn.Module) -> bool:
    """True while any HookPoint of `model` has a hook attached (models then skip fused paths)."""
    return any(point.has_hooks for point in hook_points(model).values())


@contextmanager
def hooks_attached(model: nn.Module, fns: dict[str, HookFn]) -> Iterator[None]:
    """Attach `fns[name](tensor, name)` to the named HookPoints for the duration of the block."""
    points = hook_points(model)
    unknown = set(fns) - set(points)
    if unknown:
        raise KeyError(f"no hook point named {sorted(unknown)}")
    handles = [
        points[name].add_hook(lambda tensor, n=name, f=fn: f(tensor, n)) for name, fn in fns.items()
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
