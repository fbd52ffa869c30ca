"""Job specs: the picklable settings of a run, which build their own Trainable.

A page describes a run with a frozen dataclass that has a `build()` method:

    @dataclass(frozen=True)
    class KernelJobSpec:
        data: DatasetSpec = ...
        def build(self) -> KernelTrainable: ...

    job = pool.submit(KernelJobSpec(...), TrainConfig(...))

The spec travels to the worker by pickle, which names its class by reference (module and
qualified name), so the worker imports the page's engine module and calls `spec.build()`. No
"module:function" strings. A Trainable must not change the spec it is given: the spec is how a
finished run is matched against the page's current settings (`spec_changes`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from attnviz.training.trainer import Trainable


@runtime_checkable
class JobSpec(Protocol):
    def build(self) -> Trainable: ...


def check_spec(spec: Any) -> None:
    """Raise TypeError unless `spec` can describe a job (it has a `build()` method)."""
    if not callable(getattr(spec, "build", None)):
        raise TypeError(f"a job spec needs a build() method; got {type(spec).__name__}")


def spec_changes(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Dotted names of the fields that differ between two specs (["data.name", "model.rank"]);
    ["the kind of run"] when they are not of the same type. [] when they are equal."""
    if old == new:
        return []
    if type(old) is not type(new):
        return [prefix.rstrip(".") or "the kind of run"]
    if not dataclasses.is_dataclass(old):
        return [prefix.rstrip(".")]
    out = []
    for f in dataclasses.fields(old):
        out += spec_changes(getattr(old, f.name), getattr(new, f.name), f"{prefix}{f.name}.")
    return out
