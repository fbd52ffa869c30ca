"""Tiny random-weight causal language models of the families a researcher brings (issue 56): each
saved as a Hugging Face folder (config, safetensors weights, a byte-level BPE tokenizer with a BOS
token and a chat template), built at test time from its config: 2 layers, 4 query heads sharing 2
key/value heads where the family groups them, head size 8, a few hundred kB."""

from __future__ import annotations

from pathlib import Path

import torch

HEADS, KV_HEADS, HEAD_DIM, LAYERS = 4, 2, 8, 2
CHAT = (
    "{% for m in messages %}<s>{{ m['role'] }}\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant\n{% endif %}"
)


def _shared(vocab: int, bos: int) -> dict:
    return {
        "vocab_size": vocab,
        "hidden_size": HEADS * HEAD_DIM,
        "intermediate_size": 64,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "head_dim": HEAD_DIM,
        "max_position_embeddings": 256,
        "bos_token_id": bos,
        "eos_token_id": bos,
        "tie_word_embeddings": False,
    }


def _configs(vocab: int, bos: int) -> dict:
    """{family: (config class name, model class name, config keyword arguments)}."""
    llama = _shared(vocab, bos)
    gemma = llama | {"query_pre_attn_scalar": HEAD_DIM, "sliding_window": 16}
    gpt2 = {"vocab_size": vocab, "n_embd": HEADS * HEAD_DIM, "n_layer": LAYERS, "n_head": HEADS}
    gpt2 |= {"n_positions": 256, "bos_token_id": bos, "eos_token_id": bos}
    return {
        "llama": ("LlamaConfig", "LlamaForCausalLM", llama),
        "mistral": ("MistralConfig", "MistralForCausalLM", llama | {"sliding_window": None}),
        "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", llama),
        "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", llama),
        "gemma2": ("Gemma2Config", "Gemma2ForCausalLM", gemma),
        "gemma3_text": ("Gemma3TextConfig", "Gemma3ForCausalLM", gemma),
        "phi3": ("Phi3Config", "Phi3ForCausalLM", llama | {"pad_token_id": bos}),
        "gpt2": ("GPT2Config", "GPT2LMHeadModel", gpt2),
    }


FAMILIES = tuple(_configs(1, 0))


def tiny_family(family: str, folder: Path, seed: int = 0, **changes) -> Path:
    """A tiny random model of `family` (a key of FAMILIES), its config's `changes` applied,
    saved in `folder`; the folder."""
    import transformers
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    from attnviz.core.tokenizers import bpe_tokenizer

    base = Tokenizer.from_str(bpe_tokenizer(300).to_str())  # a copy: the cached one is shared
    base.add_special_tokens(["<s>"])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=base, bos_token="<s>", eos_token="<s>")
    tokenizer.chat_template = CHAT
    config_name, model_name, kwargs = _configs(base.get_vocab_size(), tokenizer.bos_token_id)[
        family
    ]
    torch.manual_seed(seed)
    config = getattr(transformers, config_name)(**(kwargs | changes))
    model = getattr(transformers, model_name)(config)
    with torch.no_grad():  # biases start at 0 (GPT-2's, its LayerNorms'): made to count
        for name, value in model.named_parameters():
            if name.endswith("bias"):
                value.normal_(0.0, 0.1)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder
