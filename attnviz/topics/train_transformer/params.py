"""Parameters of the Train a transformer live page (seeds 002, 003): task, model, training, and
the trained model's tools (kept out of the URL: they exist only after a run)."""

from __future__ import annotations

from typing import Any

from attnviz.data.tasks import TASK_NAMES, TaskSpec
from attnviz.models.transformer import POSITIONAL, TransformerConfig
from attnviz.topics.params import PageParams, Param
from attnviz.topics.train_transformer.task import PRESETS
from attnviz.topics.training_params import train_values, training_params
from attnviz.training.trainer import TrainConfig

TRAIN_SIZES = (500, 1000, 2000, 5000, 10000)


def preset_values(task: TaskSpec, model: TransformerConfig, train: TrainConfig) -> dict[str, Any]:
    """A preset of the engine (task, model, training) as this page's parameter values."""
    return {
        "tt_task": task.name,
        "tt_len": task.length,
        "tt_sym": task.n_symbols,
        "tt_ntrain": task.n_train,
        "tt_layers": model.n_layer,
        "tt_heads": model.n_head,
        "tt_d": model.d_model,
        "tt_drop": model.dropout,
        "tt_pos": model.positional,
        **train_values("tt", train),
    }


TABLE = PageParams(
    prefix="tt",
    params=(
        Param("tt_task", "task", "selectbox", "reverse", choices=TASK_NAMES),
        Param("tt_len", "sequence length", "slider", 8, low=4, high=24, step=1),
        Param("tt_sym", "symbols (digits, or p)", "slider", 10, low=3, high=64, step=1),
        Param("tt_ntrain", "training examples", "select_slider", 2000, choices=TRAIN_SIZES),
        Param("tt_layers", "layers", "slider", 1, low=1, high=4, step=1),
        Param("tt_heads", "heads", "select_slider", 1, choices=(1, 2, 4)),
        Param("tt_d", "d_model", "select_slider", 32, choices=(16, 32, 64, 128)),
        Param("tt_drop", "dropout", "select_slider", 0.0, choices=(0.0, 0.1, 0.2, 0.5)),
        Param("tt_pos", "positions", "selectbox", "learned", choices=POSITIONAL),
        *training_params(
            "tt", optimizer="adamw", lr=3e-3, batch_mode="minibatch", batch_size=64, steps=800
        ),
        Param("tt_prompt", "prompt", "text_input", "a small fox", url=False),
        Param(
            "tt_gen_temp",
            "sampling temperature (0 = greedy)",
            "select_slider",
            0.0,
            choices=(0.0, 0.5, 1.0, 1.5),
            url=False,
        ),
    ),
    presets={name: preset_values(*spec) for name, spec in PRESETS.items()},
)

TRY_THIS: list[str] = [
    "**Reverse: 1 layer, 1 head** → Start: for a few hundred steps the map stays blurry, then "
    "(around step 400) the anti-diagonal appears and validation accuracy jumps to 100 %.",
    "Scrub the timeline after training: the attention goes from blurry (every row near uniform) "
    "to sharp.",
    "**Copy: causal decoder** → Start: in layer 1, most positions from '|' on look back at the "
    "digit they must write next, T places earlier (an offset diagonal).",
    "Set positions to *none* on reverse: the model cannot know where a token is, and validation "
    "accuracy stalls near 30 % (with learned positions it reaches 100 %).",
]
