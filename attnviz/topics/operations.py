"""A scene's named operations: the engine calls its page makes besides drawing views (generate,
ablate, save, load, measure, upload, read a photo), declared once in the topic's scene so that
the page and a notebook make the same call.

    SCENE = Scene(..., ops=Operations(generate=generate, save=save_model))
    SCENE.ops.generate(model, prompt)          # the page
    av.scene(url).ops.names()                  # a notebook: what the page can do
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any


class Operations(Mapping[str, Callable[..., Any]]):
    """Named callables, read as attributes (`ops.generate`) or by name (`ops["generate"]`);
    fixed once made. An unknown name raises AttributeError (KeyError by name) listing the
    known ones."""

    def __init__(self, **named: Callable[..., Any]) -> None:
        for name, call in named.items():
            if not callable(call):
                raise TypeError(f"operation {name!r} is not callable: {call!r}")
            if hasattr(Operations, name):  # `ops.keys` would read the mapping's own method
                raise ValueError(f"operation {name!r} is a name the mapping itself uses")
        object.__setattr__(self, "_named", dict(named))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        named = self.__dict__.get("_named", {})
        if name not in named:
            raise AttributeError(f"no operation {name!r}; there are: {', '.join(named) or 'none'}")
        return named[name]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a scene's operations are fixed once declared")

    def __getitem__(self, name: str) -> Callable[..., Any]:
        return self._named[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._named)

    def __len__(self) -> int:
        return len(self._named)

    def names(self) -> list[str]:
        """The operations' names, in the order declared."""
        return list(self._named)

    def __repr__(self) -> str:
        return f"Operations({', '.join(self._named)})"
