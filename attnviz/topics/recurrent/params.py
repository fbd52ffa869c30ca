"""Parameters of the Recurrent networks and attention page (seed 002): the task, the encoder and
decoder, training, your own date, and the "Try this" claims (each tested:
tests/engine/test_recurrent_try_this.py)."""

from __future__ import annotations

from typing import Any

from attnviz.data.dates import TASKS, DateTaskSpec
from attnviz.models.rnn import Seq2SeqConfig
from attnviz.topics.params import PageParams, Param
from attnviz.topics.recurrent.task import PRESETS, SCORES
from attnviz.topics.training_params import train_values, training_params
from attnviz.training.trainer import TrainConfig

TRAIN_SIZES = (1000, 2000, 5000, 10000)


def preset_values(task: DateTaskSpec, model: Seq2SeqConfig, train: TrainConfig) -> dict[str, Any]:
    """A preset of the engine (task, model, training) as this page's parameter values."""
    return {
        "rn_task": task.name,
        "rn_ntrain": task.n_train,
        "rn_cell": model.cell,
        "rn_bi": model.bidirectional,
        "rn_score": model.attention,
        "rn_hidden": model.d_hidden,
        **train_values("rn", train),
    }


TABLE = PageParams(
    prefix="rn",
    params=(
        Param(
            "rn_task",
            "task",
            "radio",
            "dates",
            choices=TASKS,
            help="dates: '23 nov 2026' → '2026-11-23' (8 formats); reverse: the same strings "
            "written backwards (its alignment is the anti-diagonal)",
        ),
        Param("rn_ntrain", "training examples", "select_slider", 5000, choices=TRAIN_SIZES),
        Param("rn_cell", "recurrent cell", "radio", "gru", choices=("gru", "lstm")),
        Param("rn_bi", "bidirectional encoder", "toggle", True),
        Param(
            "rn_score",
            "attention score",
            "selectbox",
            "additive",
            choices=SCORES,
            help="q: the decoder's state; k: an encoder state. additive (Bahdanau): "
            "wᵀ tanh(W_q q + W_k k); general (Luong): qᵀ W k, W learned; dot (Luong): qᵀk, "
            "with a one-way encoder. A two-way encoder's states are twice as wide as q, so "
            "there dot first maps q by a learned P: (Pq)ᵀk = qᵀ Pᵀ k, which is general with "
            "W = Pᵀ. The baseline beside it has no attention at all.",
        ),
        Param("rn_hidden", "hidden units", "select_slider", 64, choices=(32, 64, 128)),
        *training_params(
            "rn",
            optimizer="adam",
            lr=0.005,
            schedule="cosine",
            batch_mode="minibatch",
            batch_size=64,
            steps=600,
            max_steps=5000,
        ),
        Param("rn_input", "your date", "text_input", "23 nov 2026"),
        # sections built only while open (the page's lazy expanders, keyed by these): in the
        # table so that a link, a preset or a lesson step can open them
        Param("rn_open_length", "Accuracy by input length (open)", "toggle", False),
        Param("rn_open_states", "Inside the encoder (open)", "toggle", False),
        Param("rn_open_timing", "Sequential vs parallel (open)", "toggle", False),
    ),
    presets={name: preset_values(*spec) for name, spec in PRESETS.items()},
)

TRY_THIS: list[str] = [
    "**Dates: Bahdanau** → Start: by step 400 the model with attention writes over 95 % of "
    "unseen dates exactly, while the same model without attention is still below 50 %: one "
    "vector (its last state) is a bottleneck; attention looks back at every state.",
    "After that run, scrub the **timeline** back to step 0: every row of the alignment is nearly "
    "flat. At the end each digit of the output year looks at that same digit of the input, one "
    "after another (a diagonal through “1964”).",
    "Choose the **Reverse** preset and Start: the alignment becomes the anti-diagonal (output "
    "character i looks at input character T−1−i). Open *Accuracy by input length*: without "
    "attention, the share of characters written right falls as the strings grow longer (about "
    "80 % at 8 characters, under 50 % past 24); with attention it stays near 100 %.",
    "Switch **bidirectional encoder** off and open *Inside the encoder*: “what state t has "
    "read” is one triangle: a one-way state knows nothing of the characters after it. Switch it "
    "on: the backward half reads from the end (the other triangle).",
    "After the Dates run, type `march 5, 2031` or `05.03.31` into *your date*: the model with "
    "attention writes 2031-03-05, and its alignment shows where it found each digit.",
]
