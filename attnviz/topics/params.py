"""A page's parameters as one typed table: key, widget, default, choices, URL binding, presets.

Widgets (attnviz.ui.common.widgets), presets, the URL and the page's Reset button all derive from
the table, so a preset sets every parameter of its page and a link reproduces every setting.
Plain data: no streamlit here, so tests and lessons can read the tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

WIDGETS = (
    "slider",
    "select_slider",
    "selectbox",
    "radio",
    "toggle",
    "number_input",
    "text_input",
    "text_area",
    "pills",  # several of `choices` at once: the value is a tuple
)
CHOICE_WIDGETS = ("select_slider", "selectbox", "radio")
RANGE_WIDGETS = ("slider", "number_input")


@dataclass(frozen=True)
class Param:
    """One setting of a page. `key` is both its session-state key and its URL parameter."""

    key: str
    label: str
    widget: str  # one of WIDGETS
    default: Any
    choices: tuple = ()  # options of a choice widget
    low: float | None = None  # bounds of a slider / number input
    high: float | None = None
    step: float | None = None
    url: bool = True  # kept in the URL (bound with bind="query-params")
    help: str | None = None
    # how a choice is shown (and written in the URL)
    format_func: Callable[[Any], str] | None = None
    # other parameters' values under which this one is drawn, enabled and has its full range:
    # (("ta_tok", "bpe"),) or (("sa_m", 8),) for a slider whose top is m − 1
    shown_when: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.widget not in WIDGETS:
            raise ValueError(f"{self.key}: unknown widget {self.widget!r}")
        if not self.valid(self.default):
            raise ValueError(f"{self.key}: default {self.default!r} is not a valid value")

    def valid(self, value: Any) -> bool:
        """Whether `value` is one this parameter's widget can hold."""
        if self.widget in CHOICE_WIDGETS:
            return value in self.choices
        if self.widget == "pills":
            return isinstance(value, tuple) and all(v in self.choices for v in value)
        if self.widget == "toggle":
            return isinstance(value, bool)
        if self.widget in RANGE_WIDGETS:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return False
            return math.isfinite(value) and self.low <= value <= self.high
        return isinstance(value, str)

    def other_value(self) -> Any:
        """A valid value different from the default (tests use it to check the URL round trip)."""
        if self.widget in CHOICE_WIDGETS:
            return next(c for c in reversed(self.choices) if c != self.default)
        if self.widget == "pills":
            return self.choices[:1] if self.default != self.choices[:1] else self.choices[:2]
        if self.widget == "toggle":
            return not self.default
        if self.widget in RANGE_WIDGETS:
            return self.high if self.default != self.high else self.low
        return self.default + " (changed)"

    def url_text(self, value: Any) -> str | list[str]:
        """The value as Streamlit writes it in the URL for this widget (pills: one per choice)."""
        if self.widget == "pills":
            return [str(v) for v in value]
        if self.widget in CHOICE_WIDGETS:
            return self.format_func(value) if self.format_func else str(value)
        if self.widget == "toggle":
            return "true" if value else "false"
        if self.widget in RANGE_WIDGETS and isinstance(value, float) and value == int(value):
            return str(int(value))  # as Streamlit writes numbers: 2.0 -> "2"
        return str(value)

    def from_url_text(self, text: str | list[str]) -> Any:
        """The value a URL text stands for, or None if it stands for no valid value."""
        if self.widget == "pills":
            texts = [text] if isinstance(text, str) else list(text)
            picked = tuple(c for c in self.choices if str(c) in texts)
            return picked if len(picked) == len(texts) else None
        if self.widget in CHOICE_WIDGETS:
            return next((c for c in self.choices if self.url_text(c) == text), None)
        if self.widget == "toggle":
            return {"true": True, "false": False}.get(text.lower())
        if self.widget in RANGE_WIDGETS:
            try:
                read = float(text)
                number = type(self.default)(read)
            except (TypeError, ValueError, OverflowError):
                return None
            whole = isinstance(self.default, float) or read == number  # "7.5" is no int
            return number if whole and self.valid(number) else None
        return text


@dataclass(frozen=True)
class PageParams:
    """Every parameter of one page, and its presets (each a partial dict completed by defaults)."""

    prefix: str  # the page's key prefix ("ss"); widget keys outside the table use it too
    params: tuple[Param, ...]
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        keys = [p.key for p in self.params]
        if len(keys) != len(set(keys)):
            raise ValueError(f"{self.prefix}: duplicate parameter keys")
        for name, values in self.presets.items():
            for key, value in values.items():
                if key not in keys:
                    raise ValueError(f"preset {name!r} sets unknown parameter {key!r}")
                if not self[key].valid(value):
                    raise ValueError(f"preset {name!r}: {value!r} is not valid for {key!r}")

    def __getitem__(self, key: str) -> Param:
        for param in self.params:
            if param.key == key:
                return param
        raise KeyError(key)

    def __contains__(self, key: str) -> bool:
        return any(p.key == key for p in self.params)

    @property
    def keys(self) -> list[str]:
        return [p.key for p in self.params]

    def defaults(self) -> dict[str, Any]:
        return {p.key: p.default for p in self.params}

    def preset(self, name: str) -> dict[str, Any]:
        """The complete state a preset sets: every parameter, the preset's values over defaults."""
        return self.defaults() | dict(self.presets[name])
