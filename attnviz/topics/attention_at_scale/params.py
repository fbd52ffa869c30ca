"""Parameters of the Attention at scale page (issue 30): the part shown (masks, linear attention,
FlashAttention, the KV cache, the measured cost), the text every part reads, the mask and its
window, dilation and global tokens, the depth of the receptive field, the head and the query
shown; FlashAttention's and the KV cache's own settings
(attnviz.topics.attention_at_scale.flash_params) follow; presets and the Try-this claims (each
tested: tests/app/test_scale_try_this.py)."""

from __future__ import annotations

from typing import Any

from attnviz.topics.attention_at_scale.flash_params import (
    FLASH_PARAMS,
    FLASH_PART,
    FLASH_TRY_THIS,
    KV_PART,
)
from attnviz.topics.attention_at_scale.masks import MASKS
from attnviz.topics.params import PageParams, Param

MASKS_PART, LINEAR_PART, COST_PART = "Masks", "Linear attention", "Cost"
PARTS = (MASKS_PART, LINEAR_PART, FLASH_PART, KV_PART, COST_PART)
DEFAULT_TEXT = "The cat sat on the mat because it was tired and the dog watched it from the door"
MAX_CHARS = 2_000
MAX_TOKENS = 64  # of the text: the maps stay readable (every label drawn)
LONGEST_TEXT = " ".join(["word"] * MAX_TOKENS)  # shows the query slider's whole range


def _on(*parts: str) -> tuple[tuple[str, Any], ...]:
    return tuple(("sc_part", part) for part in parts)


def _slider(key: str, label: str, default: int, low: int, high: int, *parts: str, **more) -> Param:
    return Param(
        key, label, "slider", default, low=low, high=high, step=1, shown_when=_on(*parts), **more
    )


TABLE = PageParams(
    prefix="sc",
    params=(
        Param("sc_part", "part", "radio", MASKS_PART, choices=PARTS),
        Param(
            "sc_text",
            "Your text",
            "text_input",
            DEFAULT_TEXT,
            shown_when=_on(MASKS_PART, LINEAR_PART),
        ),
        Param(
            "sc_mask",
            "mask",
            "selectbox",
            "sliding window",
            choices=MASKS,
            shown_when=_on(MASKS_PART),
        ),
        Param(
            "sc_causal",
            "causal (j ≤ i)",
            "toggle",
            False,
            shown_when=_on(MASKS_PART, LINEAR_PART, COST_PART),
        ),
        _slider(
            "sc_w",
            "window width w",
            3,
            1,
            16,
            MASKS_PART,
            COST_PART,
            help="Each token sees itself and the w − 1 tokens before it (and after it, "
            "when not causal).",
        ),
        _slider(
            "sc_r",
            "dilation r",
            2,
            1,
            4,
            MASKS_PART,
            COST_PART,
            help="Dilated: the window's keys are r apart.",
        ),
        _slider(
            "sc_g",
            "global tokens g",
            1,
            0,
            4,
            MASKS_PART,
            COST_PART,
            help="Global + local: the first g tokens see every token and are seen by all.",
        ),
        _slider("sc_layers", "layers L", 2, 1, 8, MASKS_PART),
        _slider("sc_head", "head", 0, 0, 3, MASKS_PART, LINEAR_PART),
        Param(
            "sc_query",
            "query token",
            "slider",
            5,
            low=0,
            high=MAX_TOKENS - 1,
            step=1,
            shown_when=(*_on(LINEAR_PART), ("sc_text", LONGEST_TEXT)),
        ),  # high: T − 1
        *FLASH_PARAMS,
        # the timing section, built only while open (a lazy expander keyed by it): in the table
        # so that a link, a preset or a lesson step can open it
        Param("sc_open_cost", "Time it on this machine (open)", "toggle", False),
    ),
    presets={
        "Causal window, 4 layers": {
            "sc_part": MASKS_PART,
            "sc_mask": "sliding window",
            "sc_causal": True,
            "sc_w": 3,
            "sc_layers": 4,
        },
        "Longformer: global + local": {
            "sc_part": MASKS_PART,
            "sc_mask": "global + local",
            "sc_w": 2,
            "sc_g": 1,
            "sc_layers": 2,
        },
        "Dilated window": {"sc_part": MASKS_PART, "sc_mask": "dilated", "sc_w": 3, "sc_r": 3},
        "Linear vs softmax": {"sc_part": LINEAR_PART},
        "Cost as T grows": {"sc_part": COST_PART},
    },
)

TRY_THIS: list[str] = [
    "Choose the *sliding window* with w = 3 and turn on *causal*: the title counts 3T − 3 "
    "scores (3 a row, fewer in the first two rows) instead of T(T + 1)/2.",
    "Press **Causal window, 4 layers**: after L layers the last token draws on the "
    "L·(w − 1) = 8 tokens before it; raise *layers L* and it reaches 2 more a layer.",
    "Press **Longformer: global + local**: through the one global token every token reaches "
    "every other in 2 layers, though every other row keeps at most 4 scores.",
    "In **Linear attention**, every weight is above 0 (φ(q)·φ(k) > 0): its rows are flatter "
    "than softmax's (higher entropy), and the mean total-variation distance between them is "
    "printed.",
    "In **Cost**, the scores a layer computes grow as T² for the full mask (slope 2 on log–log "
    "axes) and as T for a window (slope 1): at 8,192 tokens a window of width 3 (5 keys a row) "
    "keeps 0.06 % of them.",
    *FLASH_TRY_THIS,  # items 6 to 10 (tests/engine/test_scale_flash.py, test_scale_kv_cache.py)
]
