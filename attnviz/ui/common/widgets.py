"""Widgets, preset buttons and the Reset button, all derived from a page's parameter table.

value = draw(TABLE, "ss_q1")                    # the widget, bound to the URL if the table says so
value = draw(TABLE, "ta_query", high=len(tokens) - 1)   # a range depending on other settings
preset_buttons(TABLE)                             # each sets EVERY parameter of the page
reset_button(TABLE)                               # back to the page's defaults
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from attnviz.io.user_text import md_literal
from attnviz.topics.params import PageParams, Param
from attnviz.ui.common import here
from attnviz.ui.common.layout import TITLE_ROW
from attnviz.ui.common.settings import settings


def apply(table: PageParams, values: dict[str, Any]) -> None:
    """Write a complete parameter state into session state (an on_click callback's job)."""
    for key, value in values.items():
        st.session_state[key] = list(value) if table[key].widget == "pills" else value
    _forget_url_seeds([key for key in values if table[key].url])


def _forget_url_seeds(keys: list[str]) -> None:
    """Streamlit seeds a URL-bound widget that it sees as new (one whose range or choices just
    changed, e.g. the query slider after a preset with fewer tokens) from the query string of
    this rerun, which still holds the value from before the preset, so the URL would win over
    the value just set. Dropping those keys from this rerun's seeds lets the set value stand;
    Streamlit then writes it to the URL as for any programmatic change. Streamlit has no public
    API for this (1.67: QueryParams._initial_query_params); tests/app/test_param_tables.py fails
    if it stops working."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as params:
        seeds = getattr(params, "_initial_query_params", {})
        for key in keys:
            seeds.pop(key, None)


def _sync_url(param: Param, value: Any) -> None:
    """Keep the address bar equal to what the widget shows. Streamlit writes a programmatic
    value (a preset, Reset) to the URL only for a widget it has seen before; one re-made because
    its range changed keeps the previous value in the URL, so a copied link would be wrong.
    Private API as in _forget_url_seeds; tests/browser/test_shared_links.py checks the URL."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as params:
        binding = params.get_binding_for_param(param.key)
        stored = params._query_params.get(param.key) if binding is not None else None
        if binding is None:
            return
        if param.widget != "pills" and isinstance(stored, list):
            stored = stored[-1] if stored else None
        if value == param.default:
            if stored is not None:
                params.remove_param(param.key)
        elif stored is None or param.from_url_text(stored) != value:
            params.set_corrected_value(param.key, param.url_text(value), binding.value_type)


def _admits(param: Param, value: Any, choices: Sequence, low: Any, high: Any) -> bool:
    """Whether the widget as drawn now (its current choices or range) can hold `value`."""
    if param.widget in ("select_slider", "selectbox", "radio"):
        return value in choices
    if param.widget == "pills":
        return all(v in choices for v in value)
    if param.widget in ("slider", "number_input"):
        return low <= value <= high
    return True


def _refuse_bad_link_value(
    param: Param, label: str, choices: Sequence, low: Any, high: Any
) -> None:
    """A value in the link that this widget cannot hold (not finite, out of range, of another
    type, not a choice) is dropped before the widget reads it: the widget starts at its default
    and a notice says so, instead of a traceback (`?seed=inf` broke every page)."""
    if param.key in st.session_state or param.key not in st.query_params:
        return
    texts = st.query_params.get_all(param.key)
    text: Any = texts if param.widget == "pills" else (texts[-1] if texts else "")
    value = param.from_url_text(text)
    if value is not None and _admits(param, value, choices, low, high):
        return
    del st.query_params[param.key]
    _forget_url_seeds([param.key])
    st.toast(
        f"The link's value for “{label}” ({md_literal(text, 40)}) is not valid here: "
        "using the default."
    )


def _fit(param: Param, choices: Sequence, low: Any, high: Any) -> None:
    """A stored value that the widget's current range or choices no longer admit falls back to
    the nearest admissible one, so a widget never receives an invalid value."""
    if param.key not in st.session_state:
        return
    value = st.session_state[param.key]
    if param.widget == "pills" and isinstance(value, list | tuple):
        st.session_state[param.key] = [v for v in value if v in choices]
    elif param.widget in ("select_slider", "selectbox", "radio") and value not in choices:
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
    **options: Any,
) -> Any:
    """Draw parameter `key` of `table` as its widget and return its value. `choices`, `low` and
    `high` narrow the table's ranges where they depend on other settings; `options` go to the
    Streamlit widget as they are (how it looks or limits input: `max_chars=`, `height=`)."""
    param = table[key]
    choices = list(param.choices if choices is None else choices)
    low = param.low if low is None else low
    high = param.high if high is None else high
    if param.url:
        _refuse_bad_link_value(param, label or param.label, choices, low, high)
    _fit(param, choices, low, high)
    value = _widget(param, label or param.label, choices, low, high, disabled, help, options)
    if param.url:
        _sync_url(param, value)
    return value


def _widget(
    param: Param,
    label: str,
    choices: list,
    low: Any,
    high: Any,
    disabled: bool,
    help: str | None,
    options: dict[str, Any],
) -> Any:
    key = param.key
    common = {
        "key": key,
        "disabled": disabled,
        "help": help or param.help,
        "bind": "query-params" if param.url else None,
        **options,
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
    if kind == "pills":
        default = [c for c in param.default if c in choices]
        picked = st.pills(label, choices, selection_mode="multi", default=default, **fmt, **common)
        return tuple(picked or ())
    if kind == "toggle":
        return st.toggle(label, param.default, **common)
    return getattr(st, kind)(label, param.default, **common)


def preset_buttons(
    table: PageParams, on_apply: Callable[[], None] | None = None, stacked: bool = False
) -> None:
    """One button per preset; a click sets every parameter of the page (preset over defaults).
    Labels wrap rather than end in "…". The presets (and the page's Reset, drawn next) share one
    compact row that wraps only when it must, so a page's figures start higher in the first
    screen (issue 54: a grid of wide buttons under a "Presets" heading took 130 px at 1280×720);
    `stacked`: one under another, full width (in a "Presets" pop-over; not in lecture mode,
    where they keep a row inside it, and the page's Reset stays outside it, where a lecturer
    looks: it joined that row, hidden in the pop-over)."""
    if not table.presets:
        return
    in_row = not stacked or _lecture()
    place = st
    if in_row:
        place = st.container(horizontal=True, gap="small", vertical_alignment="center")
        place.markdown("**Presets:**", width="content")
        if not stacked:  # the page's Reset joins a row on the page, never one in a pop-over
            st.session_state[_ROW + table.prefix] = place
    for name in table.presets:
        place.button(
            name,
            key=f"{table.prefix}_preset_{name}",
            on_click=_on_preset,
            args=(table, name, on_apply),
            width="content" if in_row else "stretch",
            wrap=True,
        )


_ROW = "_preset_row_"  # session key of this rerun's preset row (Reset joins it), per table


def _lecture() -> bool:
    return settings().lecture


def _on_preset(table: PageParams, name: str, on_apply: Callable[[], None] | None) -> None:
    apply(table, table.preset(name))
    if on_apply:
        on_apply()


def reset_button(table: PageParams, on_reset: Callable[[], None] | None = None) -> None:
    """A "Reset page" button: every parameter back to its default (and `on_reset` for the rest).
    It joins the page title's line in lecture mode (attnviz.ui.common.layout.intro), else the
    row of preset buttons drawn just before, if there is one."""

    def _reset() -> None:
        apply(table, table.defaults())
        if on_reset:
            on_reset()

    row = st.session_state.pop(_ROW + table.prefix, None)
    title = st.session_state.pop(TITLE_ROW, None)  # (a stage hides the title's line)
    where = (title if _lecture() and not here.staged() else None) or row
    (where or st).button(
        "Reset page",
        key=f"{table.prefix}_reset_page",
        icon=":material/restart_alt:",
        on_click=_reset,
        help="Every setting of this page back to its default",
        wrap=True,
    )
