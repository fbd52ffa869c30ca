"""Widgets, preset buttons and the Reset button, all derived from a page's parameter table.

value = draw(TABLE, "ss_q1")                      # the widget, bound to the URL if the table says so
value = draw(TABLE, "ta_query", high=len(tokens) - 1)   # a range that depends on other settings
preset_buttons(TABLE)                             # each sets EVERY parameter of the page
reset_button(TABLE)                               # back to the page's defaults
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from attnviz.ui.params.table import PageParams, Param

# Values written by apply() that their widgets have not shown yet, and values to write again on
# the rerun that draw() asks for (see draw).
_APPLIED = "_params_applied"
_PENDING = "_params_pending"


def apply(table: PageParams, values: dict[str, Any]) -> None:
    """Write a complete parameter state into session state (an on_click callback's job)."""
    for key, value in values.items():
        st.session_state[key] = value
    st.session_state[_APPLIED] = st.session_state.get(_APPLIED, {}) | dict(values)


def _fit(param: Param, choices: Sequence, low: Any, high: Any) -> None:
    """A stored value that the widget's current range or choices no longer admit falls back to
    the nearest admissible one, so a widget never receives an invalid value."""
    if param.key not in st.session_state:
        return
    value = st.session_state[param.key]
    if param.widget in ("select_slider", "selectbox", "radio") and value not in choices:
        st.session_state[param.key] = param.default if param.default in choices else choices[0]
    elif param.widget in ("slider", "number_input") and isinstance(value, int | float):
        st.session_state[param.key] = min(max(value, low), high)


def draw(
    table: PageParams,
    key: str,
    *,
    label: str | None = None,
    choices: Sequence | None = None,
    low: Any = None,
    high: Any = None,
    disabled: bool = False,
    help: str | None = None,
    **widget_args: Any,
) -> Any:
    """Draw parameter `key` of `table` as its widget and return its value. `choices`, `low` and
    `high` narrow the table's ranges where they depend on other settings; `widget_args` go to the
    Streamlit widget as they are (max_chars=, height=)."""
    param = table[key]
    choices = list(param.choices if choices is None else choices)
    low = param.low if low is None else low
    high = param.high if high is None else high
    pending = st.session_state.get(_PENDING, {})
    if key in pending:
        st.session_state[key] = pending.pop(key)
    _fit(param, choices, low, high)
    wanted = st.session_state.get(key)
    value = _widget(param, label or param.label, choices, low, high, disabled, help, widget_args)
    # A slider whose range changes in the same run as a preset or Reset sets it is a new widget
    # to Streamlit, and a new URL-bound widget takes its value from the URL, which still holds
    # the old one. Then write the value again and rerun: the widget is no longer new.
    if key in st.session_state.get(_APPLIED, {}):
        del st.session_state[_APPLIED][key]
        if param.url and wanted is not None and value != wanted:
            st.session_state[_PENDING] = pending | {key: wanted}
            st.rerun()
    return value


def _widget(
    param: Param,
    label: str,
    choices: list,
    low: Any,
    high: Any,
    disabled: bool,
    help: str | None,
    widget_args: dict[str, Any],
) -> Any:
    key = param.key
    common = {
        "key": key,
        "disabled": disabled,
        "help": help or param.help,
        "bind": "query-params" if param.url else None,
        **widget_args,
    }
    kind = param.widget
    fmt = {"format_func": param.format_func} if param.format_func else {}
    if kind in ("selectbox", "radio"):
        index = choices.index(param.default) if param.default in choices else 0
        extra = {"horizontal": True} if kind == "radio" else {}
        return getattr(st, kind)(label, choices, index=index, **fmt, **extra, **common)
    if kind == "select_slider":
        value = param.default if param.default in choices else choices[0]
        return st.select_slider(label, choices, value=value, **fmt, **common)
    if kind in ("slider", "number_input"):
        value = min(max(param.default, low), high)
        return getattr(st, kind)(label, low, high, value, param.step, **common)
    if kind == "toggle":
        return st.toggle(label, param.default, **common)
    return getattr(st, kind)(label, param.default, **common)


def preset_buttons(
    table: PageParams, on_apply: Callable[[], None] | None = None, per_row: int | None = None
) -> None:
    """One button per preset; a click sets every parameter of the page (preset over defaults)."""
    if not table.presets:
        return
    st.markdown("**Presets**")
    names = list(table.presets)
    per_row = per_row or (4 if len(names) <= 4 else 3)
    for start in range(0, len(names), per_row):
        for col, name in zip(st.columns(per_row), names[start : start + per_row], strict=False):

            def _apply(name: str = name) -> None:
                apply(table, table.preset(name))
                if on_apply:
                    on_apply()

            col.button(name, key=f"{table.prefix}_preset_{name}", on_click=_apply, width="stretch")


def reset_button(table: PageParams, on_reset: Callable[[], None] | None = None) -> None:
    """A "Reset page" button: every parameter back to its default (and `on_reset` for the rest)."""

    def _reset() -> None:
        apply(table, table.defaults())
        if on_reset:
            on_reset()

    st.button(
        "Reset page",
        key=f"{table.prefix}_reset_page",
        icon=":material/restart_alt:",
        on_click=_reset,
        help="Every setting of this page back to its default",
    )
