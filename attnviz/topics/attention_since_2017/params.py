"""Parameters of the Attention since 2017 page (issue 44): the variants trained side by side, the
decoder task they learn, the latent's width and the window of the variant with a sink; the layer
and head whose maps are drawn; the context length of the real models' KV-cache calculator; the
training form; presets and the Try-this claims (each tested:
tests/engine/test_since2017_try_this.py)."""

from __future__ import annotations

from typing import Any

from attnviz.models.variant_attention import VARIANTS
from attnviz.topics.attention_since_2017.configs import CONTEXTS
from attnviz.topics.params import PageParams, Param
from attnviz.topics.training_params import train_values, training_params
from attnviz.training.trainer import TrainConfig

TASKS = {"copy": "copy (digits | the same digits)", "next_char": "next character (fables)"}
LATENTS = (4, 8, 16, 32)


def _train(steps: int, lr: float) -> dict[str, Any]:
    """The training form's values of a preset (AdamW, constant rate, batches of 64)."""
    config = TrainConfig(
        optimizer="adamw",
        lr=lr,
        steps=steps,
        schedule="constant",
        batch_mode="minibatch",
        batch_size=64,
    )
    return train_values("sv", config)


ALL_SEVEN = "All seven on copy"
SINK_PRESET = "First token: softmax vs gated"
CACHE_PRESET = "Cache: MHA, GQA, MLA"
PRESETS: dict[str, dict[str, Any]] = {
    ALL_SEVEN: {"sv_variants": VARIANTS, "sv_task": "copy", **_train(400, 5e-3)},
    SINK_PRESET: {"sv_variants": ("mha", "gated"), "sv_task": "copy", **_train(400, 5e-3)},
    CACHE_PRESET: {
        "sv_variants": ("mha", "gqa", "mla"),
        "sv_task": "copy",
        "sv_latent": 16,
        **_train(300, 1e-2),
    },
}

TABLE = PageParams(
    prefix="sv",
    params=(
        Param(
            "sv_variants",
            "variants trained side by side",
            "pills",
            VARIANTS,
            choices=VARIANTS,
            help="mha: multi-head (2017); gqa: grouped-query, 2 key/value heads; mqa: "
            "multi-query, 1; mla: multi-head latent; sink: sliding window on layer 0 and a "
            "learned sink logit; gated: σ(xW_g) ⊙ attention; diff: differential, A₁ − λA₂",
        ),
        Param("sv_task", "task", "selectbox", "copy", choices=tuple(TASKS), format_func=TASKS.get),
        Param(
            "sv_latent",
            "latent width (MLA)",
            "select_slider",
            16,
            choices=LATENTS,
            help="Keys and values are up-projected from one latent of this width: the only "
            "thing a decoder caches.",
        ),
        Param(
            "sv_window",
            "window (window + sink)",
            "slider",
            4,
            low=2,
            high=12,
            step=1,
            help="Layer 0 keeps each query's last keys only; layer 1 sees them all. A learned "
            "sink logit per head takes part in every softmax.",
        ),
        Param("sv_layer", "layer shown", "slider", 1, low=0, high=1, step=1),
        Param("sv_head", "head shown", "slider", 0, low=0, high=3, step=1),
        *training_params(
            "sv",
            optimizer="adamw",
            lr=5e-3,
            batch_mode="minibatch",
            batch_size=64,
            steps=400,
            max_steps=3000,
        ),
        Param(
            "sv_context",
            "context length (tokens)",
            "select_slider",
            8_192,
            choices=CONTEXTS,
            format_func=lambda n: f"{n:,}",
        ),
    ),
    presets=PRESETS,
)

TRY_THIS: list[str] = [
    f"Press **{SINK_PRESET}** → Start: after 400 steps gated attention puts less of its weight "
    "on the first token than plain softmax attention does (the first-token chart).",
    f"Press **{CACHE_PRESET}** → Start: grouped-query (2 key/value heads) caches half of "
    "multi-head's bytes per token and the latent (16 wide) a quarter, and all three copy with "
    "more than 95 % validation token accuracy.",
    "In the calculator at 8,192 tokens, Llama 3 8B's cache takes 1 GiB, and DeepSeek-V3's "
    "latent is more than 70× smaller than its multi-head heads would be.",
    "Move the context from 8,192 to 131,072 tokens: gpt-oss-20b's bytes per token fall (its "
    "windowed layers keep 128 tokens at most) while Llama 3 8B's stay the same.",
]
