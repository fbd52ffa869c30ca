"""The training form's parameters, shared by every live-training page: optimizer, learning rate,
schedule, batches, steps, weight decay, early-stopping patience and the speed cap (slow motion
for a class to watch). Each key is f"{prefix}_{field}" with `field` a `TrainConfig` field, so
the form's values are `TrainConfig(**form_fields(prefix, values))` with nothing renamed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attnviz.topics.params import Param
from attnviz.training.pace import SPEEDS, speed_text
from attnviz.training.trainer import BATCH_MODES, OPTIMIZERS, SCHEDULES, TrainConfig

RATES = (1e-4, 3e-4, 1e-3, 3e-3, 5e-3, 0.01, 0.02, 0.03, 0.05, 0.1, 0.3, 1.0, 10.0, 1000.0)
BATCH_SIZES = (1, 8, 16, 32, 64, 128, 256)
WEIGHT_DECAYS = (0.0, 0.01, 0.1, 1.0)
# TrainConfig fields set by the form, in the form's order
FIELDS = (
    "optimizer",
    "lr",
    "schedule",
    "batch_mode",
    "batch_size",
    "steps",
    "weight_decay",
    "patience",
    "max_steps_per_s",
)
MORE = ("schedule", "batch_mode", "batch_size", "weight_decay", "patience")  # folded away


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
    max_steps_per_s: int = 0,
) -> tuple[Param, ...]:
    """The form's parameters with this page's defaults; keys are f"{prefix}_{TrainConfig field}"."""
    k = f"{prefix}_"
    return (
        Param(k + "optimizer", "optimizer", "selectbox", optimizer, choices=OPTIMIZERS),
        Param(k + "lr", "learning rate", "select_slider", lr, choices=RATES),
        Param(
            k + "schedule",
            "learning-rate schedule",
            "radio",
            schedule,
            choices=SCHEDULES,
            help="cosine: the rate falls smoothly to 0 by the last step",
        ),
        *_batch_params(k, batch_mode, batch_size),
        Param(k + "steps", "steps", "slider", steps, low=50, high=max_steps, step=50),
        Param(
            k + "weight_decay", "weight decay", "select_slider", weight_decay, choices=WEIGHT_DECAYS
        ),
        Param(
            k + "patience",
            "early stopping patience (0 = off)",
            "slider",
            patience,
            low=0,
            high=20,
            step=1,
        ),
        _speed_param(k, max_steps_per_s),
    )


def _batch_params(k: str, batch_mode: str, batch_size: int) -> tuple[Param, Param]:
    """How the steps batch the data, and the batch size (shown for minibatches only)."""
    return (
        Param(k + "batch_mode", "batches", "radio", batch_mode, choices=BATCH_MODES),
        Param(
            k + "batch_size",
            "batch size",
            "select_slider",
            batch_size,
            choices=BATCH_SIZES,
            shown_when=((k + "batch_mode", "minibatch"),),
        ),
    )


def _speed_param(k: str, max_steps_per_s: int) -> Param:
    """The speed cap: at most so many steps a second (slow motion for a class to watch)."""
    return Param(
        k + "max_steps_per_s",
        "speed (slow motion)",
        "select_slider",
        max_steps_per_s,
        choices=SPEEDS,
        format_func=speed_text,
        help="At most this many training steps a second, so a class can watch the run "
        "unfold; max: as fast as the machine can. Applies from the next Start.",
    )


def form_fields(prefix: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """{TrainConfig field: value} of the form's parameters among a page's `values`."""
    return {field: values[f"{prefix}_{field}"] for field in FIELDS}


def train_config(prefix: str, values: Mapping[str, Any], **fixed: Any) -> TrainConfig:
    """The TrainConfig of the form's values (plus the page's fixed fields: intervals, seed)."""
    return TrainConfig(**form_fields(prefix, values), **fixed)


def train_values(prefix: str, train: TrainConfig) -> dict[str, Any]:
    """A preset's TrainConfig as the form's parameter values (the speed cap is the viewer's
    choice, so a preset leaves it alone)."""
    return {f"{prefix}_{field}": getattr(train, field) for field in FIELDS[:-1]}
