"""A Phi-3 folder read into a Llama of the same shape (issue 56), so that the language-model pages
and `av.language_model(folder)` read it as they read every other model: Phi-3 is Llama's
decoder with two matrices fused, q, k and v in one `qkv_proj` (rows: the H query heads, then the
G key heads, then the G value heads) and the MLP's gate and up in one `gate_up_proj` (gate rows
first). Split back into q_proj, k_proj, v_proj, gate_proj and up_proj, the same weights give the
same logits (tests/engine/test_own_models.py checks them against transformers' own Phi-3).

Phi-3's sliding window (2,047 tokens in the mini models) is longer than any prompt the pages
read, so the Llama without one computes the same attention there. A model that turns only part
of each head with rotary positions (`partial_rotary_factor` below 1, Phi-4-mini) is refused:
Llama's attention turns all of it.
"""

from __future__ import annotations

from pathlib import Path

import torch

from attnviz.core.hf_import import HF_LOCK

COPIED = (
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "max_position_embeddings",
    "rms_norm_eps",
    "hidden_act",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "tie_word_embeddings",
)


class PartialRotary(ValueError):
    """The model turns only part of each head with rotary positions."""


def llama_config(phi_config):
    """The LlamaConfig of a Phi-3 config's shape (its rotary settings kept)."""
    from transformers import LlamaConfig

    if float(getattr(phi_config, "partial_rotary_factor", 1.0) or 1.0) != 1.0:
        raise PartialRotary("it turns only part of each head with rotary positions")
    config = LlamaConfig(**{name: getattr(phi_config, name) for name in COPIED})
    config.head_dim = phi_config.hidden_size // phi_config.num_attention_heads
    config.rope_parameters = phi_config.rope_parameters
    config._attn_implementation = "eager"
    return config


def split_weights(phi_state: dict[str, torch.Tensor], config) -> dict[str, torch.Tensor]:
    """Phi-3's weights under Llama's names, the fused matrices split."""
    q_rows = config.num_attention_heads * config.head_dim
    kv_rows = config.num_key_value_heads * config.head_dim
    state = {}
    for name, weight in phi_state.items():
        if name.endswith("self_attn.qkv_proj.weight"):
            base = name.removesuffix("qkv_proj.weight")
            q, k, v = weight.split([q_rows, kv_rows, kv_rows])  # (rows, D) each
            state |= {f"{base}q_proj.weight": q, f"{base}k_proj.weight": k}
            state[f"{base}v_proj.weight"] = v
        elif name.endswith("mlp.gate_up_proj.weight"):
            base = name.removesuffix("gate_up_proj.weight")
            gate, up = weight.chunk(2)  # (F, D) each: gate first, as Phi3MLP chunks it
            state |= {f"{base}gate_proj.weight": gate, f"{base}up_proj.weight": up}
        else:
            state[name] = weight
    return state


def phi3_as_llama(folder: str | Path):
    """(the Llama holding the Phi-3 folder's weights, in eval mode; its tokenizer)."""
    with HF_LOCK:
        from transformers import AutoTokenizer, LlamaForCausalLM, Phi3ForCausalLM

        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        phi = Phi3ForCausalLM.from_pretrained(folder, local_files_only=True)
        config = llama_config(phi.config)
        llama = LlamaForCausalLM(config)
    llama.load_state_dict(split_weights(phi.state_dict(), config), strict=True)
    return llama.eval(), tokenizer
