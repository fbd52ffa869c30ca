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
        return Tokens(readable_pieces(enc.tokens), list(enc.ids))
    else:
        raise ValueError(f"unknown tokenizer {kind!r}; choose one of {', '.join(KINDS)}")
    return Tokens(tokens, [token_id(t) for t in tokens])


@functools.lru_cache(maxsize=1)
def _byte_of_char() -> dict[str, int]:
    """The byte-level alphabet (GPT-2's bytes_to_unicode) inverted: shown character -> byte."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    extra = [b for b in range(256) if b not in printable]
    chars = printable + [256 + i for i in range(len(extra))]
    return {chr(c): b for c, b in zip(chars, printable + extra, strict=True)}


SPACE = "␣"  # how a label shows a space (a token's leading space: "␣Paris"), everywhere


def readable_pieces(pieces: list[str]) -> list[str]:
    """Byte-level BPE pieces ('Ġcat', GPT-2's byte alphabet) as text: each piece's bytes decoded
    as UTF-8, spaces as ␣ (SPACE). A character whose bytes are split over several pieces (ß is the 2
    bytes C3 9F) is shown in each piece with the part it holds: 'ß‹1/2›', 'ß‹2/2›' (never the
    byte alphabet's 'Ã', 'Ł'). A piece outside the byte alphabet (a special token) stays as is."""
    table = _byte_of_char()
    out: list[str] = []
    run: list[str] = []  # consecutive byte-level pieces, decoded together
    for piece in [*pieces, None]:
        if piece is not None and all(c in table for c in piece):
            run.append(piece)
            continue
        out += _decoded_run(run, table) if run else []
        run = []
        if piece is not None:
            out.append(piece)
    return out


def piece_bytes(piece: str, byte_level: bool) -> bytes:
    """The bytes a vocabulary piece stands for: a byte-level BPE piece's, read through GPT-2's byte
    alphabet ('Ġcat' is b' cat'); otherwise its UTF-8 with SentencePiece's '▁' as a space, a
    byte-fallback piece '<0x0A>' its one byte, and WordPiece's '##' continuation mark dropped."""
    table = _byte_of_char()
    if byte_level and all(c in table for c in piece):
        return bytes(table[c] for c in piece)
    if len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        return bytes([int(piece[3:5], 16)])
    return piece.removeprefix("##").replace("▁", " ").encode("utf-8")


def _decoded_run(pieces: list[str], table: dict[str, int]) -> list[str]:
    """Labels for consecutive byte-level pieces (see readable_pieces)."""
    spans = [bytes(table[c] for c in p) for p in pieces]  # the bytes of each piece
    owner: list[tuple[str, int, int]] = []  # per byte: (its character, byte number, char length)
    for char, n in utf8_characters(b"".join(spans)):
        owner += [(char, k, n) for k in range(1, n + 1)]
    out, at = [], 0
    for span in spans:
        label = ""
        for i, (char, k, n) in enumerate(owner[at : at + len(span)]):
            if n == 1:
                label += char
            elif k == 1 or not label:  # the first byte of the char held in this piece
                last = min(n, k + len(span) - i - 1)  # as far as this piece's bytes go
                label += char if (k, last) == (1, n) else f"{char}‹{_part(k, last, n)}›"
        out.append(label.replace(" ", SPACE))
        at += len(span)
    return out


def utf8_characters(data: bytes) -> list[tuple[str, int]]:
    """(character, bytes it takes) for each character of `data`; a byte that starts no whole
    UTF-8 character (a cut 2–4-byte character, a stray continuation byte) is one "\ufffd" of one
    byte. (Python's decoder writes one "\ufffd" for a whole cut character, so its output cannot
    be mapped back to bytes one replacement per byte.)"""
    out: list[tuple[str, int]] = []
    at = 0
    while at < len(data):
        n = _utf8_length(data[at])
        try:
            out.append((data[at : at + n].decode("utf-8"), n))
            at += n
        except UnicodeDecodeError:
            out.append(("\ufffd", 1))
            at += 1
    return out


def _utf8_length(lead: int) -> int:
    """How many bytes a UTF-8 character starting with byte `lead` takes (1 for an invalid
    lead: it is then one replacement character)."""
    for n, top in ((1, 0x80), (1, 0xC0), (2, 0xE0), (3, 0xF0), (4, 0xF8)):
        if lead < top:
            return n
    return 1


def _part(first: int, last: int, n: int) -> str:
    """'1/2' or '2-3/4': which bytes of an n-byte character a piece holds."""
    return f"{first}/{n}" if first == last else f"{first}-{last}/{n}"


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
