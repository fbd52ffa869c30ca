"""What changed since a training run, in the page's words: the settings (their labels from the
page's table, with the old and new value) whose change makes the page's job another one than the
run's. A training page says so above its views ("Changed: K (rows of θ) (was 2, now 4)"), never
with an internal field name such as `model.rank`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attnviz.topics import settings
from attnviz.topics.params import Param
from attnviz.topics.scene import Scene

SOME_SETTINGS = "the page's settings"  # when no single setting explains the change
TYPED = ("text_input", "text_area")  # what a user types is named, never repeated


def shown(param: Param, value: Any) -> str:
    """A value as the page's widget shows it."""
    if param.format_func is not None:
        return str(param.format_func(value))
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value) or "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value:g}" if isinstance(value, float) else str(value)


def describe(param: Param, old: Any, new: Any) -> str:
    """ "label (was old, now new)"; only the label for a typed text."""
    if param.widget in TYPED:
        return param.label
    return f"{param.label} (was {shown(param, old)}, now {shown(param, new)})"


def _spec(scene: Scene, values: Mapping[str, Any]) -> Any:
    return scene.config(dict(values)).spec


def changed_settings(
    scene: Scene, run_values: Mapping[str, Any], values: Mapping[str, Any]
) -> list[str]:
    """Each setting of the page (its table, then the global settings) whose value differs
    between `run_values` (the run's) and `values` (the page's now) and which, changed alone,
    makes another job spec; described by `describe`. A setting whose check fails (its config
    raises) is named when its value differs. [SOME_SETTINGS] when the specs differ but no single
    setting does; [] when they are the same."""
    try:
        before = _spec(scene, run_values)
        changed = before != _spec(scene, values)
    except Exception:  # noqa: BLE001 - values a config refuses: name what differs
        before, changed = None, True
    if not changed:
        return []
    out = []
    for param in (*scene.table.params, *settings.TABLE.params):
        key = param.key
        if key not in run_values or key not in values or run_values[key] == values[key]:
            continue
        try:
            moved = before is None or _spec(scene, {**run_values, key: values[key]}) != before
        except Exception:  # noqa: BLE001
            moved = True
        if moved:
            out.append(describe(param, run_values[key], values[key]))
    return out or [SOME_SETTINGS]
