"""Parameters of the Attention at scale page's FlashAttention and KV-cache parts, and their Try-this
claims (each performed by tests/engine/test_scale_flash.py or test_scale_kv_cache.py).

The page's table (attnviz/topics/attention_at_scale/params.py) appends FLASH_PARAMS to its own.
Block sizes are not a slider: they follow from the fast memory M as the paper derives them (B_c =
⌈M/4d⌉, B_r = min(B_c, d)), so moving M moves the tiles. `sc_tile` counts the tiles done (0: nothing
computed yet); past the run's number of tiles it shows the last one.
"""

from __future__ import annotations

from attnviz.topics.params import Param

FLASH_PART, KV_PART = "FlashAttention", "KV cache"  # the page's part selector's choices
FLASH_WHEN = (("sc_part", FLASH_PART),)
KV_WHEN = (("sc_part", KV_PART),)
MAX_TILES = 64  # the tile slider's top

FLASH_PARAMS: tuple[Param, ...] = (
    Param(
        "sc_n",
        "sequence length N",
        "select_slider",
        16,
        choices=(8, 16, 24, 32, 48, 64),
        shown_when=FLASH_WHEN,
    ),
    Param("sc_d", "head width d", "select_slider", 4, choices=(2, 4, 8, 16), shown_when=FLASH_WHEN),
    Param(
        "sc_sram",
        "fast memory M (numbers)",
        "select_slider",
        128,
        choices=(16, 32, 64, 128, 256, 512, 1024),
        shown_when=FLASH_WHEN,
        help="On-chip SRAM. The blocks follow from it: B_c = ⌈M/4d⌉ keys, "
        "B_r = min(B_c, d) queries.",
    ),
    Param(
        "sc_tile",
        "tiles done",
        "slider",
        6,
        low=0,
        high=MAX_TILES,
        step=1,
        shown_when=FLASH_WHEN,
        help="0: nothing computed yet. Past the last tile the last one is shown.",
    ),
    Param(
        "sc_kv_len", "tokens to decode", "slider", 24, low=2, high=64, step=1, shown_when=KV_WHEN
    ),
    Param("sc_kv_layers", "layers", "slider", 2, low=1, high=4, step=1, shown_when=KV_WHEN),
    Param("sc_kv_heads", "heads", "select_slider", 2, choices=(1, 2, 4), shown_when=KV_WHEN),
    Param("sc_kv_cache", "use the KV cache", "toggle", True, shown_when=KV_WHEN),
)

FLASH_TRY_THIS: list[str] = [
    "**FlashAttention**: move **tiles done** to the end (8 tiles at the defaults): every row's "
    "running max and running sum reach the dashed values computed from the whole row at once, "
    "and the output differs from standard attention by less than 10⁻⁶.",
    "**FlashAttention**: step **tiles done** from 5 to 6. Tile 6 is query block 1 against key "
    "block 1: three of its four rows meet a larger score, so their old running sum and output "
    "are first scaled down by exp(m_old − m_new); no score is ever written to slow memory.",
    "**FlashAttention**: raise **fast memory M** from 128 to 512. The key blocks grow from 8 to "
    "16 rows, one pass over Q and O is enough, and the slow-memory traffic falls from 640 to 384 "
    "numbers; standard attention's stays at 1,280.",
    "**KV cache**: decode 24 tokens. Both ways give the same logits (difference below 10⁻⁵), "
    "but without the cache every step recomputes all earlier tokens: 13× more attention work "
    "in total. Double **tokens to decode** to 48 and the gap grows to 27×.",
    "**KV cache**: the cache grows by 2 × layers × heads × d_head × 4 bytes a token (512 bytes "
    "at the defaults: 12 KiB after 24 tokens); set **heads** to 4 and it stays the same, since "
    "heads × d_head = d_model.",
]
