"""The engine's one hook mechanism: hook points in our own models, module hooks in models we load.

Our models place `HookPoint()` modules where an interesting tensor flows (q, k, scores, weights,
per-head output). A HookPoint keeps its own list of hooks (it never reads torch's private
`_forward_hooks`): with none attached it returns its input unchanged; each attached hook sees the
tensor and may return a replacement. `run_with_cache` attaches a recording hook to every
HookPoint, runs the model once and returns `(output, cache)` keyed by module name;
`run_with_hooks` attaches hooks that may edit (ablation).

A hook acts only in the thread that attached it. A model is shared by every session of a server
(one SmolLM2 per process; one restored snapshot's model, attnviz.topics.live.restored), and each
session runs in its own thread: one session's ablation or capture must not edit or record
another's forward pass that runs at the same time. In another thread the model runs as if no
hook were attached (its fused paths too).

Models we load but do not own (Hugging Face's) have no hook points, so their modules are hooked
here and nowhere else: `module_hooks` registers torch forward hooks (on a module's output) or
forward pre-hooks (on its first input) for the duration of a block, each of which may return a
replacement (patching), and removes them on leaving the block, error or not; `module_cache`
records what chosen modules read or return, as `run_with_cache` does for hook points.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any, Literal

import torch
from torch import Tensor, nn

HookFn = Callable[[Tensor, str], Tensor | None]
PointHook = Callable[[Tensor], Tensor | None]
ModuleKind = Literal["output", "input"]  # a module's output, or the first input of its call
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
        self._hooks: dict[int, tuple[int, PointHook]] = {}  # id -> (its thread, the hook)

    def add_hook(self, fn: PointHook) -> HookHandle:
        """Call `fn(tensor)` on every forward in this thread; a non-None result replaces the
        tensor."""
        hook_id = next(_ids)
        self._hooks[hook_id] = (threading.get_ident(), fn)
        return HookHandle(self, hook_id)

    def _mine(self) -> list[PointHook]:
        """The hooks this thread attached, in order."""
        me = threading.get_ident()
        return [fn for owner, fn in list(self._hooks.values()) if owner == me]

    @property
    def has_hooks(self) -> bool:
        """True while this thread has a hook attached here."""
        return bool(self._mine())

    def forward(self, x: Tensor) -> Tensor:
        for fn in self._mine():
            replaced = fn(x)
            if replaced is not None:
                x = replaced
        return x


def hook_points(model: nn.Module) -> dict[str, HookPoint]:
    """All HookPoints of `model`, by their dotted module names."""
    return {name: mod for name, mod in model.named_modules() if isinstance(mod, HookPoint)}


def model_is_capturing(model: nn.Module) -> bool:
    """True while this thread has a hook attached to any HookPoint of `model` (models then skip
    fused paths)."""
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


def _output_hook(fn: PointHook) -> Callable[[nn.Module, tuple, Any], Any]:
    """A torch forward hook calling `fn` on the output (a tuple's first element, as a decoder
    layer's hidden states), in the thread that made it only; a non-None result replaces it (the
    rest of a tuple kept)."""
    owner = threading.get_ident()

    def hook(_module: nn.Module, _args: tuple, out: Any) -> Any:
        if threading.get_ident() != owner:
            return None
        replaced = fn(out[0] if isinstance(out, tuple) else out)
        if replaced is None:
            return None
        return (replaced, *out[1:]) if isinstance(out, tuple) else replaced

    return hook


def _input_hook(fn: PointHook) -> Callable[[nn.Module, tuple], tuple | None]:
    """A torch forward pre-hook calling `fn` on the first positional input, in the thread that
    made it only; a non-None result replaces it (any other positional inputs kept)."""
    owner = threading.get_ident()

    def hook(_module: nn.Module, args: tuple) -> tuple | None:
        if threading.get_ident() != owner:
            return None
        replaced = fn(args[0])
        return None if replaced is None else (replaced, *args[1:])

    return hook


@contextmanager
def module_hooks(
    hooks: Iterable[tuple[nn.Module, PointHook]], kind: ModuleKind = "output"
) -> Iterator[None]:
    """Call `fn(tensor)` on every call of each paired module while inside the block: the tensor
    is the module's output (kind "output"; a tuple's first element) or its first positional
    input (kind "input"). A non-None result replaces that tensor. The torch hooks are removed on
    leaving the block, by an error too (also one raised while registering them)."""
    if kind not in ("output", "input"):
        raise ValueError(f"kind must be 'output' or 'input', not {kind!r}")
    with ExitStack() as registered:
        for module, fn in hooks:
            if kind == "output":
                handle = module.register_forward_hook(_output_hook(fn))
            else:
                handle = module.register_forward_pre_hook(_input_hook(fn))
            registered.callback(handle.remove)
        yield


@contextmanager
def module_cache(
    outputs: dict[str, Sequence[nn.Module]] | None = None,
    inputs: dict[str, Sequence[nn.Module]] | None = None,
    keep: Callable[[Tensor], Tensor] = Tensor.detach,
) -> Iterator[dict[str, list[Tensor]]]:
    """A cache filled while inside the block: `cache[name]` lists `keep(tensor)` for every call
    of the modules named `name`, in the order the model calls them; the tensor is a module's
    output (`outputs`; a tuple's first element) or its first input (`inputs`). `keep` defaults to
    detaching (pass one that keeps the graph to take gradients, or one that moves to the CPU)."""
    outputs, inputs = outputs or {}, inputs or {}
    if set(outputs) & set(inputs):
        raise ValueError(f"names in both outputs and inputs: {sorted(set(outputs) & set(inputs))}")
    cache: dict[str, list[Tensor]] = {name: [] for name in (*outputs, *inputs)}

    def keeper(name: str) -> PointHook:
        return lambda tensor: cache[name].append(keep(tensor))

    def pairs(taps: dict[str, Sequence[nn.Module]]) -> list[tuple[nn.Module, PointHook]]:
        return [(module, keeper(name)) for name, mods in taps.items() for module in mods]

    with module_hooks(pairs(outputs), "output"), module_hooks(pairs(inputs), "input"):
        yield cache
