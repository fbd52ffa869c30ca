"""A tiny random Llama with grouped-query attention for offline tests of the language-model page:
2 layers, 4 query heads sharing 2 key/value heads (head size 8), rotary positions, a byte-level
BPE tokenizer trained on the bundled corpus with a "<s>" BOS token. Its query and key weights are
scaled up so that its attention maps are far from uniform (random init gives nearly flat ones,
which would let a wrong oracle pass), and its norms' scales drawn from 0.5–1.5 (not all ones)."""

from __future__ import annotations

import torch

from attnviz.topics.pretrained.model import PretrainedModel

HEADS, KV_HEADS, HEAD_DIM, LAYERS = 4, 2, 8, 2


def tiny_llama(seed: int = 0) -> PretrainedModel:
    from tokenizers import Tokenizer
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from attnviz.core.tokenizers import bpe_tokenizer

    base = Tokenizer.from_str(bpe_tokenizer(300).to_str())  # a copy: the cached one is shared
    base.add_special_tokens(["<s>"])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=base, bos_token="<s>")
    config = LlamaConfig(
        vocab_size=base.get_vocab_size(),
        hidden_size=HEADS * HEAD_DIM,
        intermediate_size=64,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS,
        head_dim=HEAD_DIM,
        max_position_embeddings=256,
        bos_token_id=tokenizer.bos_token_id,
        tie_word_embeddings=False,
    )
    config._attn_implementation = "eager"
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.q_proj.weight.mul_(12.0)
            layer.self_attn.k_proj.weight.mul_(12.0)
        for norm in [model.model.norm] + [
            n
            for layer in model.model.layers
            for n in (layer.input_layernorm, layer.post_attention_layernorm)
        ]:  # learned scales, not all ones: an oracle that leaves a scale out must fail
            norm.weight.uniform_(0.5, 1.5)
    return PretrainedModel(model, tokenizer, "tiny-llama", causal=True)
