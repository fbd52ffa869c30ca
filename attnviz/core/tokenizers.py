"""Character, word and byte-pair (BPE) tokenizers.

BPE uses the Hugging Face `tokenizers` library (byte-level, so any text, emoji included,
tokenizes without unknowns), trained on the small corpus shipped in attnviz/data/corpus.txt.
Every tokenizer returns the token strings and their ids; `detokenize` joins them back.
"""

from __future__ import annotations

import functools
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).parents[1] / "data" / "corpus.txt"  # a bundled file, not an import
KINDS = ("word", "char", "bpe")
WORD_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)


@dataclass
class Tokens:
    tokens: list[str]  # as shown to a person
    ids: list[int]


@functools.lru_cache(maxsize=8)
def bpe_tokenizer(vocab_size: int):
    """A byte-level BPE with `vocab_size` entries trained on the bundled corpus (cached)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train([str(CORPUS)], trainer)
    return tok


def bpe_learned_size(vocab_size: int) -> int:
    """How many entries the BPE really has (the small corpus may run out of pairs to merge)."""
    return bpe_tokenizer(vocab_size).get_vocab_size()


def tokenize(text: str, kind: str = "word", bpe_vocab: int = 300) -> Tokens:
    """Split `text`; ids are vocabulary indices (BPE) or stable hashes of the token (char/word)."""
    if kind == "char":
        tokens = list(text)
    elif kind == "word":
        tokens = WORD_RE.findall(text)
    elif kind == "bpe":
        enc = bpe_tokenizer(bpe_vocab).encode(text)
        tokens = [t.replace("Ġ", "▁") for t in enc.tokens]
        return Tokens(_readable(tokens, enc.ids, bpe_vocab), list(enc.ids))
    else:
        raise ValueError(f"unknown tokenizer {kind!r}; choose one of {', '.join(KINDS)}")
    return Tokens(tokens, [token_id(t) for t in tokens])


def _readable(tokens: list[str], ids: list[int], bpe_vocab: int) -> list[str]:
    """Byte-level pieces of multi-byte characters decode to text where possible."""
    tok = bpe_tokenizer(bpe_vocab)
    out = []
    for shown, i in zip(tokens, ids, strict=True):
        decoded = tok.decode([i])
        out.append(decoded.replace(" ", "▁") if "\ufffd" not in decoded else shown)
    return out


def token_id(token: str, vocab: int = 50_000) -> int:
    """A stable id for a character or word (a hash: the same token always gets the same id)."""
    return zlib.crc32(token.encode("utf-8")) % vocab


def detokenize(tokens: Tokens, kind: str, bpe_vocab: int = 300) -> str:
    """Back to text (words are joined by single spaces)."""
    if kind == "char":
        return "".join(tokens.tokens)
    if kind == "bpe":
        return bpe_tokenizer(bpe_vocab).decode(tokens.ids)
    return " ".join(tokens.tokens)
