"""A lesson's parameter values, read from TOML and checked against the page's parameter table.

TOML gives ints, floats, booleans, strings and arrays; `coerce` turns one into the exact value the
page's widget holds (an int on a float slider becomes a float, 1 on a choice of floats becomes that
choice, an array of pills a tuple in the choices' order) or says why it cannot. What one parameter
alone cannot check (values that depend on each other on the same page) the page's scene says:
`Scene.problems`.
"""

from __future__ import annotations

import difflib
from typing import Any

from attnviz.topics.params import CHOICE_WIDGETS, RANGE_WIDGETS, Param


class BadValue(ValueError):
    """A value that the parameter cannot hold (the message says what it can)."""


def suggest(name: str, names: list[str] | tuple[str, ...]) -> str:
    """The hint " (did you mean 'x'?)" for the closest of `names`, or "" when none is close."""
    close = difflib.get_close_matches(name, list(names), n=2, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


def _same_choice(value: Any, choices: tuple) -> Any:
    """The choice equal to `value` with a compatible type (True is not 1, 1 may be 1.0)."""
    for choice in choices:
        if isinstance(value, bool) != isinstance(choice, bool):
            continue
        if isinstance(value, str) != isinstance(choice, str):
            continue
        if value == choice:
            return choice
    raise BadValue(f"choose one of {', '.join(repr(c) for c in choices)}")


def _number(param: Param, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadValue(f"a number between {param.low:g} and {param.high:g} is needed")
    if isinstance(param.default, int):
        if isinstance(value, float):
            if not value.is_integer():
                raise BadValue("a whole number is needed")
            value = int(value)
    else:
        value = float(value)
    if not param.valid(value):
        raise BadValue(f"{value!r} is outside {param.low:g} … {param.high:g}")
    return value


def coerce(param: Param, value: Any) -> Any:
    """The widget's own value for a TOML value, or BadValue saying what is allowed."""
    if param.widget in CHOICE_WIDGETS:
        return _same_choice(value, param.choices)
    if param.widget == "pills":
        if not isinstance(value, list | tuple):
            raise BadValue("an array of choices is needed, e.g. [0, 1]")
        picked = [_same_choice(v, param.choices) for v in value]
        if len(set(picked)) != len(picked):
            raise BadValue("a choice is repeated")
        return tuple(c for c in param.choices if c in picked)
    if param.widget == "toggle":
        if not isinstance(value, bool):
            raise BadValue("true or false is needed")
        return value
    if param.widget in RANGE_WIDGETS:
        return _number(param, value)
    if not isinstance(value, str):
        raise BadValue("a string is needed")
    return value
