"""A tiny causal language model for offline tests: GPT2LMHeadModel(n_layer=2, n_head=2,
n_embd=32) with random (seeded) weights and a byte-level BPE tokenizer trained here on a few
sentences, both saved with save_pretrained into a folder. No network; about a second."""

from __future__ import annotations

from pathlib import Path

SENTENCES = [
    "the cat sat on the mat and the dog sat on the rug",
    "a small fox jumps over the lazy dog while the cat sleeps",
    "attention lets every token look at the tokens before it",
    "straße, café and naïve are words with bytes beyond ascii",
]


def byte_level_tokenizer(vocab_size: int = 320):
    """A GPT2TokenizerFast around a ByteLevel BPE trained on SENTENCES (every byte covered)."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2TokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        SENTENCES, vocab_size=vocab_size, special_tokens=["<|endoftext|>"], show_progress=False
    )
    return GPT2TokenizerFast(
        tokenizer_object=bpe._tokenizer,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )


def tiny_causal_lm(folder: Path, seed: int = 0) -> Path:
    """Save a random tiny GPT-2 language model and its tokenizer to `folder`; return it."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = byte_level_tokenizer()
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=128,
        n_layer=2,
        n_head=2,
        n_embd=32,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    GPT2LMHeadModel(config).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder
