"""The KV cache of real models, from the numbers in their published configs, and its arithmetic.

Every number below is copied from the model's published `config.json` (cited beside it); the
bundled SmolLM2's are also in its GGUF file's metadata (tests/engine/test_variant_cache.py reads
them there). The cache is counted in bf16, BYTES = 2 bytes a number, as these models are served.

A layer caches, per token of context, a key and a value of `head_dim` for each key/value head
(2 · kv_heads · head_dim numbers), or MLA's latent (`latent`: kv_lora_rank + qk_rope_head_dim,
the compressed keys and values and the one decoupled rotary key shared by all heads). A
sliding-window layer keeps at most `window` tokens. The reference, "as multi-head attention", is
the same layers with every query head its own key and value head, every layer full:
layers · T · q_heads · (k_dim + v_dim) numbers (DeepSeek-V3's heads: keys of 128 + 64 = 192,
values of 128).
"""

from __future__ import annotations

from dataclasses import dataclass

BYTES = 2  # bf16
CONTEXTS = (1_024, 4_096, 8_192, 32_768, 131_072)  # the calculator's context lengths


@dataclass(frozen=True)
class RealConfig:
    name: str
    source: str  # the published config the numbers are read from
    layers: int
    q_heads: int
    kv_heads: int  # key/value heads (0: MLA, which caches `latent` instead)
    head_dim: int  # of keys and values
    window: int = 0  # tokens a sliding-window layer keeps (0: none)
    local_layers: int = 0  # how many layers use the window
    latent: int = 0  # MLA: numbers cached per token and layer
    k_dim: int = 0  # the reference's key width per head when it is not head_dim (MLA)
    kind: str = ""  # how it saves, in words

    def cached_numbers(self, layer_is_local: bool, context: int) -> int:
        """Numbers one layer caches for `context` tokens."""
        kept = min(context, self.window) if layer_is_local and self.window else context
        per_token = self.latent if self.latent else 2 * self.kv_heads * self.head_dim
        return kept * per_token

    def cache_bytes(self, context: int) -> int:
        """Bytes of the whole cache (every layer) holding `context` tokens."""
        local = self.local_layers * self.cached_numbers(True, context)
        full = (self.layers - self.local_layers) * self.cached_numbers(False, context)
        return (local + full) * BYTES

    def mha_bytes(self, context: int) -> int:
        """Bytes the cache would take as multi-head attention (every layer full)."""
        k_dim = self.k_dim or self.head_dim
        return self.layers * context * self.q_heads * (k_dim + self.head_dim) * BYTES


SMOLLM2 = RealConfig(
    "SmolLM2-135M (bundled)",
    # HuggingFaceTB/SmolLM2-135M config.json: num_hidden_layers 30, num_attention_heads 9,
    # num_key_value_heads 3, hidden_size 576 (head_dim 576 / 9 = 64); the bundled GGUF's
    # llama.block_count 30, llama.attention.head_count 9 and head_count_kv 3
    "HuggingFaceTB/SmolLM2-135M config.json",
    layers=30,
    q_heads=9,
    kv_heads=3,
    head_dim=64,
    kind="grouped-query, 3 query heads a KV head",
)
LLAMA3_8B = RealConfig(
    "Llama 3 8B",
    # meta-llama/Meta-Llama-3-8B config.json: num_hidden_layers 32, num_attention_heads 32,
    # num_key_value_heads 8, hidden_size 4096 (head_dim 128)
    "meta-llama/Meta-Llama-3-8B config.json",
    layers=32,
    q_heads=32,
    kv_heads=8,
    head_dim=128,
    kind="grouped-query, 4 query heads a KV head",
)
GEMMA3_27B = RealConfig(
    "Gemma 3 27B",
    # google/gemma-3-27b-it config.json, text_config: num_hidden_layers 62,
    # num_attention_heads 32, num_key_value_heads 16, head_dim 128, sliding_window 1024,
    # sliding_window_pattern 6: every sixth layer global, so 62 // 6 = 10 global, 52 local
    "google/gemma-3-27b-it config.json",
    layers=62,
    q_heads=32,
    kv_heads=16,
    head_dim=128,
    window=1024,
    local_layers=52,
    kind="grouped-query; 5 local layers (window 1,024) to 1 global",
)
GPT_OSS_20B = RealConfig(
    "gpt-oss-20b",
    # openai/gpt-oss-20b config.json: num_hidden_layers 24, num_attention_heads 64,
    # num_key_value_heads 8, head_dim 64, sliding_window 128, layer_types alternating
    # "sliding_attention" and "full_attention" (12 each); a learned sink logit per head
    "openai/gpt-oss-20b config.json",
    layers=24,
    q_heads=64,
    kv_heads=8,
    head_dim=64,
    window=128,
    local_layers=12,
    kind="grouped-query; window 128 on every other layer; sink logits",
)
DEEPSEEK_V3 = RealConfig(
    "DeepSeek-V3",
    # deepseek-ai/DeepSeek-V3 config.json: num_hidden_layers 61, num_attention_heads 128,
    # kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128
    "deepseek-ai/DeepSeek-V3 config.json",
    layers=61,
    q_heads=128,
    kv_heads=0,
    head_dim=128,
    latent=512 + 64,
    k_dim=128 + 64,
    kind="multi-head latent: a 512 latent + a 64 rotary key",
)
REAL_CONFIGS = (SMOLLM2, LLAMA3_8B, GEMMA3_27B, GPT_OSS_20B, DEEPSEEK_V3)


@dataclass(frozen=True)
class CacheRow:
    name: str
    kind: str
    per_token: float  # bytes per token of context (the whole cache / T)
    total: int  # bytes of the whole cache at T
    mha_total: int  # bytes as multi-head attention at T

    @property
    def times_smaller(self) -> float:
        return self.mha_total / self.total


def cache_table(context: int) -> list[CacheRow]:
    """Every real config's cache at `context` tokens, beside its multi-head reference."""
    if context < 1:
        raise ValueError(f"a context holds at least one token, got {context}")
    return [
        CacheRow(
            c.name,
            c.kind,
            c.cache_bytes(context) / context,
            c.cache_bytes(context),
            c.mha_bytes(context),
        )
        for c in REAL_CONFIGS
    ]


def readable_bytes(n: float) -> str:
    """1,536 -> "1.5 KiB"; binary units, three significant figures."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")
