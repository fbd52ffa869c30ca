"""The views cache (attnviz.ui.common.view_cache) keeps a figure with the settings its builder
read: a change of another setting gives the same figure unbuilt, a change of one it read (or of
one it asked for and did not find) builds it again, and so does another result."""

from __future__ import annotations

from attnviz.topics.scene import Scene
from attnviz.topics.views import View
from attnviz.ui.common import view_cache

BUILT: list[str] = []


def _a(out, values):
    BUILT.append("a")
    return ("a", out, values["x"], values.get("absent", "none"))


def _b(out, values):
    BUILT.append("b")
    return None if values["y"] else ("b", out)


SCENE = Scene(
    url="view-cache-test",
    table=None,
    try_this=(),
    config=lambda values: values,
    run=lambda config: config,
    declared=(View("a", _a, main=True), View("b", _b)),
)


def _views(out, **values):
    return view_cache.cached_views(SCENE, out, values, {"a", "b"}, key=out)


def test_a_figure_is_built_again_only_when_what_it_read_changes():
    BUILT.clear()
    first = _views(1, x=0, y=False, z=0)
    assert first == {"a": ("a", 1, 0, "none"), "b": ("b", 1)} and BUILT == ["a", "b"]
    again = _views(1, x=0, y=False, z=5)  # z: read by no builder
    assert BUILT == ["a", "b"] and again["a"] is first["a"]
    assert _views(1, x=1, y=False, z=0)["a"] == ("a", 1, 1, "none") and BUILT[2:] == ["a"]
    assert _views(1, x=0, y=True, z=0) == {"a": first["a"]} and BUILT[3:] == ["b"]  # None: left out
    assert _views(1, x=0, y=False, absent=2)["a"] == ("a", 1, 0, 2) and BUILT[4:] == ["a"]
    assert _views(2, x=0, y=False)["a"] == ("a", 2, 0, "none") and BUILT[5:] == ["a", "b"]
    assert _views(1, x=0, y=False, z=9) == first and len(BUILT) == 7  # both still kept
