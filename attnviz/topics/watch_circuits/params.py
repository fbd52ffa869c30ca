"""Parameters of the Watching circuits form page (issue 28): the experiment (induction heads,
grokking, attention sinks), each experiment's own settings (drawn only while it is chosen), the
training form, and the ablation tool's head (kept out of the URL: it exists only after a run).
Presets are the engine's measured ones (attnviz.topics.watch_circuits.presets)."""

from __future__ import annotations

from typing import Any

from attnviz.topics.params import PageParams, Param
from attnviz.topics.training_params import train_values, training_params
from attnviz.training.trainer import TrainConfig

INDUCTION, GROKKING, SINKS = "Induction heads", "Grokking", "Attention sinks"
EXPERIMENTS = (INDUCTION, GROKKING, SINKS)
ATTENTIONS = {"softmax": "softmax", "softmax1": "softmax plus one", "sigmoid": "sigmoid"}
PRIMES = (23, 31, 41, 53, 59, 67, 97)
FRACTIONS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.8)
HEADS = ("L0H0", "L0H1", "L1H0", "L1H1")  # the induction models' heads (2 per layer)


def _when(experiment: str) -> tuple[tuple[str, Any], ...]:
    return (("ci_exp", experiment),)


def _train(steps: int, lr: float, **more: Any) -> dict[str, Any]:
    """The training form's values of a preset (AdamW, constant rate, as the engine's)."""
    config = TrainConfig(optimizer="adamw", lr=lr, steps=steps, schedule="constant", **more)
    return train_values("ci", config)


MINIBATCH = {"batch_mode": "minibatch", "batch_size": 64}
PRESETS: dict[str, dict[str, Any]] = {
    "Induction: 2 layers": {"ci_exp": INDUCTION, "ci_layers": 2, **_train(1000, 1e-2, **MINIBATCH)},
    "Induction: 1 layer": {"ci_exp": INDUCTION, "ci_layers": 1, **_train(1000, 1e-2, **MINIBATCH)},
    "Grokking: a+b mod 53": {
        "ci_exp": GROKKING,
        "ci_p": 53,
        "ci_frac": 0.4,
        **_train(6000, 1e-3, batch_mode="full", weight_decay=1.0),
    },
    **{
        f"Sinks: {name}": {
            "ci_exp": SINKS,
            "ci_attn": attention,
            "ci_bos": False,
            **_train(2000, 1e-2, **MINIBATCH),
        }
        for name, attention in (
            ("softmax without BOS", "softmax"),
            ("softmax + 1", "softmax1"),
            ("sigmoid", "sigmoid"),
        )
    },
}

TABLE = PageParams(
    prefix="ci",
    params=(
        Param("ci_exp", "experiment", "selectbox", INDUCTION, choices=EXPERIMENTS),
        Param(
            "ci_layers",
            "layers (attention only)",
            "slider",
            2,
            low=1,
            high=2,
            step=1,
            shown_when=_when(INDUCTION),
        ),
        Param("ci_p", "modulus p", "select_slider", 53, choices=PRIMES, shown_when=_when(GROKKING)),
        Param(
            "ci_frac",
            "training fraction of the p² pairs",
            "select_slider",
            0.4,
            choices=FRACTIONS,
            shown_when=_when(GROKKING),
        ),
        Param(
            "ci_attn",
            "attention weights",
            "selectbox",
            "softmax",
            choices=tuple(ATTENTIONS),
            format_func=ATTENTIONS.get,
            shown_when=_when(SINKS),
        ),
        Param("ci_bos", "start with a BOS token", "toggle", False, shown_when=_when(SINKS)),
        Param(
            "ci_window",
            "sliding window (keys kept)",
            "slider",
            16,
            low=4,
            high=28,
            step=1,
            shown_when=_when(SINKS),
            help="Evicting: each query sees only its last keys; position 0 drops out of view.",
        ),
        *training_params(
            "ci",
            optimizer="adamw",
            lr=1e-2,
            batch_mode="minibatch",
            batch_size=64,
            steps=1000,
            max_steps=10000,
        ),
        Param("ci_ablate", "head to zero", "selectbox", "L1H0", choices=HEADS, url=False),
    ),
    presets=PRESETS,
)

TRY_THIS: list[str] = [
    "**Induction: 2 layers** → Start: for a few hundred steps both losses fall together; then "
    "(the phase change, marked) the repeated copy's loss drops far below the first copy's and "
    "a layer-1 head's induction score passes 0.5.",
    "**Induction: 1 layer** → Start: no head's induction score passes 0.3 and no phase change "
    "comes: one layer cannot both copy the previous token and match against it.",
    "After the 2-layer run, zero the layer-1 head with the highest induction score: the repeated "
    "copy's loss rises above 3 nats (from about 0.25). Zero layer 0's previous-token head "
    "instead: it rises above 3 too, since the induction head reads what that head wrote.",
    "**Grokking: a+b mod 53** → Start: by step 100 training accuracy passes 95 % while "
    "validation accuracy stays below 5 %: memorised, not understood (yet).",
    "**Sinks: softmax without BOS** → Start: by step 1,000 a layer-1 head puts 0.4 or more of "
    "its attention on position 0, which holds nothing it needs.",
]
