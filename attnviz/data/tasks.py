"""Toy sequence tasks a tiny transformer learns in seconds, deterministic given a seed.

Each task makes (inputs, targets) batches of token ids; targets are -100 where nothing is
scored. Tasks: copy, reverse, sort, modular addition, next-character language model on a
bundled text, and masked fill-in-the-blank (the self-supervised task of seed 002).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor

IGNORE = -100
CONTEXT = 8  # next_char: characters of context before scoring starts
TEXT_PATH = Path(__file__).with_name("farm_song.txt")
TASK_NAMES = ("reverse", "sort", "copy", "modular_addition", "next_char", "fill_blank")


@dataclass(frozen=True)
class TaskSpec:
    name: str = "reverse"
    length: int = 8  # sequence length (digits, or characters of context)
    n_symbols: int = 10  # digits 0..n-1 (the modulus p for modular addition)
    n_train: int = 2000
    n_val: int = 500
    seed: int = 0


@dataclass
class SequenceTask:
    """A built task: vocabulary, train/validation tensors and what the model should be."""

    spec: TaskSpec
    vocab: list[str]
    train_x: Tensor  # (N, T) token ids
    train_y: Tensor  # (N, T) target ids or IGNORE
    val_x: Tensor
    val_y: Tensor
    causal: bool  # decoder (next-token) or encoder (bidirectional)
    probe: int = 0  # index into val of the example whose attention is shown
    notes: str = ""
    extra: dict = field(default_factory=dict)

    def encode(self, tokens: list[str]) -> Tensor:
        index = {tok: i for i, tok in enumerate(self.vocab)}
        unknown = [t for t in tokens if t not in index]
        if unknown:
            raise ValueError(f"not in this task's vocabulary: {' '.join(sorted(set(unknown)))}")
        return torch.tensor([[index[t] for t in tokens]])

    def decode(self, ids: Tensor) -> list[str]:
        return [self.vocab[int(i)] for i in ids]


def build_task(spec: TaskSpec) -> SequenceTask:
    """Make the task named by spec.name (train and validation drawn disjointly where possible)."""
    builders = {
        "copy": _copy,
        "reverse": _reverse,
        "sort": _sort,
        "modular_addition": _modular_addition,
        "next_char": _next_char,
        "fill_blank": _fill_blank,
    }
    if spec.name not in builders:
        raise ValueError(f"unknown task {spec.name!r}; choose one of {', '.join(TASK_NAMES)}")
    return builders[spec.name](spec)


def _digits(spec: TaskSpec, n: int, gen: torch.Generator) -> Tensor:
    return torch.randint(0, spec.n_symbols, (n, spec.length), generator=gen)


def _split(spec: TaskSpec, make) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    gen = torch.Generator().manual_seed(spec.seed)
    x, y = make(spec.n_train + spec.n_val, gen)
    n = spec.n_train
    return x[:n], y[:n], x[n:], y[n:]


def _per_position(spec: TaskSpec, transform, notes: str) -> SequenceTask:
    """Encoder tasks: read the digits, write transform(digits) at the same positions."""

    def make(n, gen):
        x = _digits(spec, n, gen)
        return x, transform(x)

    vocab = [str(i) for i in range(spec.n_symbols)]
    return SequenceTask(spec, vocab, *_split(spec, make), causal=False, notes=notes)


def _reverse(spec: TaskSpec) -> SequenceTask:
    return _per_position(
        spec, lambda x: x.flip(1), "Position i must read position T−1−i: the anti-diagonal."
    )


def _sort(spec: TaskSpec) -> SequenceTask:
    return _per_position(
        spec, lambda x: x.sort(1).values, "Each output must count how many inputs are smaller."
    )


def _copy(spec: TaskSpec) -> SequenceTask:
    """Decoder: digits, a separator, then the same digits again; scored on the copy."""
    t, sep = spec.length, spec.n_symbols

    def make(n, gen):
        d = _digits(spec, n, gen)
        seq = torch.cat([d, torch.full((n, 1), sep), d], 1)  # (n, 2T+1)
        x, y = seq[:, :-1], seq[:, 1:].clone()
        y[:, :t] = IGNORE  # the first half is random: nothing to learn there
        return x, y

    vocab = [str(i) for i in range(spec.n_symbols)] + ["|"]
    return SequenceTask(
        spec,
        vocab,
        *_split(spec, make),
        causal=True,
        notes="After '|', position t+i must look back at position i: an offset diagonal.",
    )


def _modular_addition(spec: TaskSpec) -> SequenceTask:
    """a + b = c (mod p); every pair appears once, shuffled into train/validation."""
    p = spec.n_symbols
    gen = torch.Generator().manual_seed(spec.seed)
    a, b = torch.meshgrid(torch.arange(p), torch.arange(p), indexing="ij")
    a, b = a.flatten(), b.flatten()
    order = torch.randperm(p * p, generator=gen)
    a, b = a[order], b[order]
    plus, eq = p, p + 1
    x = torch.stack([a, torch.full_like(a, plus), b, torch.full_like(a, eq)], 1)  # (p², 4)
    y = torch.full_like(x, IGNORE)
    y[:, -1] = (a + b) % p
    n_train = max(1, int(0.8 * p * p))
    vocab = [str(i) for i in range(p)] + ["+", "="]
    return SequenceTask(
        spec,
        vocab,
        x[:n_train],
        y[:n_train],
        x[n_train:],
        y[n_train:],
        causal=False,
        notes=f"All {p * p} sums mod {p}; 80 % train, the rest is never seen in training.",
    )


def _next_char(spec: TaskSpec) -> SequenceTask:
    """Decoder: predict each next character of windows of the bundled song.

    Train windows come from the first 80 % of the text, validation windows from the rest (which
    sings verses met earlier). The first CONTEXT characters of a window are not scored.
    """
    text = TEXT_PATH.read_text(encoding="utf-8")
    vocab = sorted(set(text))
    ids = torch.tensor([vocab.index(c) for c in text])
    cut = int(0.8 * len(ids))
    gen = torch.Generator().manual_seed(spec.seed)

    def windows(source: Tensor, n: int) -> tuple[Tensor, Tensor]:
        starts = torch.randint(0, len(source) - spec.length - 1, (n,), generator=gen)
        w = torch.stack([source[s : s + spec.length + 1] for s in starts.tolist()])
        y = w[:, 1:].clone()
        y[:, : min(CONTEXT, spec.length // 2)] = IGNORE
        return w[:, :-1], y

    return SequenceTask(
        spec,
        vocab,
        *windows(ids[:cut], spec.n_train),
        *windows(ids[cut:], spec.n_val),
        causal=True,
        notes="A bundled farm song; validation windows come from its last 20 %.",
        extra={"text": text},
    )


def _fill_blank(spec: TaskSpec) -> SequenceTask:
    """Encoder, self-supervised: a window of the song with one character hidden as '_'."""
    text = TEXT_PATH.read_text(encoding="utf-8")
    vocab = sorted(set(text)) + ["_"]
    ids = torch.tensor([vocab.index(c) for c in text])
    cut, blank = int(0.8 * len(ids)), len(vocab) - 1
    gen = torch.Generator().manual_seed(spec.seed)

    def windows(source: Tensor, n: int) -> tuple[Tensor, Tensor]:
        starts = torch.randint(0, len(source) - spec.length, (n,), generator=gen)
        seq = torch.stack([source[s : s + spec.length] for s in starts.tolist()])
        hidden = torch.randint(1, spec.length - 1, (n,), generator=gen)  # context on both sides
        rows = torch.arange(n)
        x, y = seq.clone(), torch.full_like(seq, IGNORE)
        x[rows, hidden] = blank
        y[rows, hidden] = seq[rows, hidden]
        return x, y

    return SequenceTask(
        spec,
        vocab,
        *windows(ids[:cut], spec.n_train),
        *windows(ids[cut:], spec.n_val),
        causal=False,
        notes="Self-supervised, as BERT is trained: fill in the hidden character.",
        extra={"text": text},
    )
