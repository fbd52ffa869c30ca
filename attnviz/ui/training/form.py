"""The training form every live-training page shares, drawn from the page's table (its
parameters: attnviz.topics.training_params): the main fields first, the rest in an expander,
so the form fits a first screen."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.topics.params import PageParams
from attnviz.topics.training_params import FIELDS, MORE
from attnviz.ui.common.widgets import draw


def training_form(table: PageParams) -> dict[str, Any]:
    """Draw the form (in the current container; the fields of MORE in an expander) and return
    {parameter key: value}."""
    k = f"{table.prefix}_"
    minibatch = st.session_state.get(k + "batch_mode", table[k + "batch_mode"].default)
    values = {k + f: draw(table, k + f) for f in FIELDS if f not in MORE}
    with st.expander("More: schedule, batches, weight decay, early stopping"):
        for field in MORE:
            disabled = field == "batch_size" and minibatch != "minibatch"
            values[k + field] = draw(table, k + field, disabled=disabled)
    return values
