"""Views remembered across reruns and sessions: `cached_views(scene, out, values, only, key=…)` is
`scene.views(out, values, only=only)`, each view built once per result and per value of the
settings its builder read, and shared read-only (`show` copies a figure before styling it);
`kept(where, values, build)` is the same for any figure builder (the vision page's DINOv2 views).

A view's builder is a function of the result and the settings it reads: each build is handed the
settings through a mapping that notes what is read (a key asked for, even one that is missing;
everything when iterated), and the figure is kept with those readings. A later call takes it
when every one of them is equal again, so a rerun that moves a slider no view reads, or a slider
back to where it was, builds no figure (a layer × head map of the language model: ~30 ms). The
result is named by `key` (the scene's config and the model it ran on: anything a builder reads
besides the settings). For scenes without `prepare` (each view built on its own); the
`MAX_FIGURES` latest are kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping
from typing import Any

import streamlit as st

from attnviz.topics.scene import Scene, Values

MAX_FIGURES = 64  # figures kept, all pages and results together (a few MB at most each)
_MISSING = object()  # a setting a builder asked for and did not find


class _Reads(Mapping):
    """`values`, noting each setting read (the whole table when iterated)."""

    def __init__(self, values: Values):
        self._values, self.read = values, {}

    def __getitem__(self, key: str) -> Any:
        try:
            value = self._values[key]
        except KeyError:
            self.read[key] = _MISSING
            raise
        self.read[key] = value
        return value

    def __iter__(self) -> Iterator[str]:
        self.read.update(self._values)
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):  # not comparable as one truth value: never taken as equal
        return False


class _Store:
    """(url, key, view) -> [(readings, figure or None)], the MAX_FIGURES latest overall."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kept: OrderedDict[tuple, list[tuple[dict, Any]]] = OrderedDict()
        self.count = 0

    def find(self, where: tuple, values: Values) -> tuple[bool, Any]:
        with self.lock:
            for read, figure in self.kept.get(where, ()):
                if all(_same(values.get(k, _MISSING), v) for k, v in read.items()):
                    self.kept.move_to_end(where)
                    return True, figure
        return False, None

    def keep(self, where: tuple, read: dict, figure: Any) -> None:
        with self.lock:
            self.kept.setdefault(where, []).append((read, figure))
            self.kept.move_to_end(where)
            self.count += 1
            while self.count > MAX_FIGURES:
                oldest = next(iter(self.kept))
                self.kept[oldest].pop(0)
                self.count -= 1
                if not self.kept[oldest]:
                    del self.kept[oldest]


@st.cache_resource(show_spinner=False)
def _store() -> _Store:
    return _Store()  # one per server; Streamlit's "Clear cache" empties it too


def kept(where: Hashable, values: Values, build: Callable[[Mapping[str, Any]], Any]) -> Any:
    """`build(values)`, kept under `where` (what the figure is of, besides the settings) with the
    settings `build` read, and taken again while those are equal (None is kept too)."""
    store = _store()
    found, figure = store.find(where, values)
    if not found:
        reads = _Reads(values)
        figure = build(reads)
        store.keep(where, reads.read, figure)
    return figure


def cached_views(
    scene: Scene, out: Any, values: Values, only: Collection[str], key: Hashable
) -> dict[str, Any]:
    """`scene.views(out, values, only=only)` (views that draw nothing left out), each view
    remembered by `key` (what `out` is: its config and model) and the settings it read."""
    if scene.prepare is not None:  # views sharing a preparation: built together, not kept
        return scene.views(out, values, only=only)
    figures = {}
    for name in (view.name for view in scene.declared if view.name in only):
        figure = kept(
            (scene.url, key, name),
            values,
            lambda reads, name=name: scene.views(out, reads, only={name}).get(name),
        )
        if figure is not None:
            figures[name] = figure
    return figures
