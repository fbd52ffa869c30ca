"""The training form every live-training page shares, written once: its parameters (optimizer,
learning rate, schedule, batches, steps, weight decay, early-stopping patience, and the speed
cap, slow motion for a class to watch), the widgets, and the TrainConfig they make. A page
includes `training_params(prefix, ...)` in its table."""

from __future__ import annotations

from typing import Any

import streamlit as st

from attnviz.training.pace import SPEEDS, speed_text
from attnviz.training.trainer import BATCH_MODES, OPTIMIZERS, SCHEDULES, TrainConfig
from attnviz.ui.params.table import PageParams, Param
from attnviz.ui.params.widgets import draw

RATES = (1e-4, 3e-4, 1e-3, 3e-3, 5e-3, 0.01, 0.02, 0.03, 0.05, 0.1, 0.3, 1.0, 10.0, 1000.0)
BATCH_SIZES = (1, 8, 16, 32, 64, 128, 256)
WEIGHT_DECAYS = (0.0, 0.01, 0.1, 1.0)
FIELDS = ("opt", "lr", "sched", "mode", "bs", "steps", "wd", "patience", "speed")


def training_params(
    prefix: str,
    *,
    optimizer: str = "adam",
    lr: float = 0.01,
    schedule: str = "constant",
    batch_mode: str = "full",
    batch_size: int = 64,
    steps: int = 400,
    max_steps: int = 5000,
    weight_decay: float = 0.0,
    patience: int = 0,
    speed: int = 0,
) -> tuple[Param, ...]:
    """The form's parameters with this page's defaults; keys are f"{prefix}_{field}"."""
    k = f"{prefix}_"
    return (
        Param(k + "opt", "optimizer", "selectbox", optimizer, choices=OPTIMIZERS),
        Param(k + "lr", "learning rate", "select_slider", lr, choices=RATES),
        Param(
            k + "sched",
            "learning-rate schedule",
            "radio",
            schedule,
            choices=SCHEDULES,
            help="cosine: the rate falls smoothly to 0 by the last step",
        ),
        Param(k + "mode", "batches", "radio", batch_mode, choices=BATCH_MODES),
        Param(
            k + "bs",
            "batch size",
            "select_slider",
            batch_size,
            choices=BATCH_SIZES,
            shown_when=((k + "mode", "minibatch"),),
        ),
        Param(k + "steps", "steps", "slider", steps, low=50, high=max_steps, step=50),
        Param(k + "wd", "weight decay", "select_slider", weight_decay, choices=WEIGHT_DECAYS),
        Param(
            k + "patience",
            "early stopping patience (0 = off)",
            "slider",
            patience,
            low=0,
            high=20,
            step=1,
        ),
        Param(
            k + "speed",
            "speed (slow motion)",
            "select_slider",
            speed,
            choices=SPEEDS,
            format_func=speed_text,
            help="At most this many training steps a second, so a class can watch the run "
            "unfold; max: as fast as the machine can. Applies from the next Start.",
        ),
    )


MORE = ("sched", "mode", "bs", "wd", "patience")  # in an expander: the form fits a first screen


def training_form(table: PageParams) -> dict[str, Any]:
    """Draw the form (in the current container; the fields of MORE in an expander) and return
    {field: value}."""
    k = f"{table.prefix}_"
    minibatch = st.session_state.get(k + "mode", table[k + "mode"].default) == "minibatch"
    values = {f: draw(table, k + f) for f in FIELDS if f not in MORE}
    with st.expander("More: schedule, batches, weight decay, early stopping"):
        for field in MORE:
            values[field] = draw(table, k + field, disabled=field == "bs" and not minibatch)
    return values


def train_config(values: dict[str, Any], **fixed: Any) -> TrainConfig:
    """The TrainConfig of the form's values (plus the page's fixed fields: intervals, seed)."""
    return TrainConfig(
        optimizer=values["opt"],
        lr=values["lr"],
        schedule=values["sched"],
        batch_mode=values["mode"],
        batch_size=values["bs"],
        steps=values["steps"],
        weight_decay=values["wd"],
        patience=values["patience"],
        max_steps_per_s=values["speed"],
        **fixed,
    )
