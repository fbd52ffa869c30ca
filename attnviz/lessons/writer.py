"""Write a view of the app as a lesson step ("add this view as a step"): a [[steps]] block of TOML
that `parse_lesson` reads back to the same page, title, narration and parameters."""

from __future__ import annotations

import re
from typing import Any

from attnviz.lessons.model import HOME, tables

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\b": "\\b",
    "\f": "\\f",
}


def toml_string(text: str) -> str:
    """A TOML basic string ("…") holding exactly `text`."""
    out = []
    for ch in text:
        if ch in ESCAPES:
            out.append(ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _readable_literal(text: str) -> bool:
    """Whether `text` can be written as a multi-line literal string ('''…''') unchanged."""
    if "'''" in text or text.endswith("'") or "\r" in text:
        return False
    return all(ch in "\n\t" or (ord(ch) >= 0x20 and ord(ch) != 0x7F) for ch in text)


def toml_long_string(text: str) -> str:
    """A narration: a multi-line literal string where that holds it unchanged, else a basic one.
    (TOML drops the newline right after the opening ''', so the text starts on the next line.)"""
    return "'''\n" + text + "'''" if _readable_literal(text) else toml_string(text)


def toml_value(value: Any) -> str:
    """A parameter value as TOML: booleans, numbers, strings, arrays (pills)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # shortest text that reads back as the same float ("0.003", "1e-05")
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def toml_key(key: str) -> str:
    return key if BARE_KEY.match(key) else toml_string(key)


def step_toml(page: str, params: dict[str, Any], title: str, narration: str) -> str:
    """A [[steps]] block for `page` in the state `params` (in the table's order; parameters kept
    out of the URL, which a step cannot set, are left out). Append it to a lesson file."""
    lines = [
        "[[steps]]",
        f"page = {toml_string(page)}",
        f"title = {toml_string(title)}",
        f"narration = {toml_long_string(narration)}",
    ]
    if page != HOME:
        table = tables()[page]
        keys = [p.key for p in table.params if p.url and p.key in params]
        if keys:
            lines.append("[steps.params]")
            lines += [f"{toml_key(key)} = {toml_value(params[key])}" for key in keys]
    return "\n".join(lines) + "\n"
