"""Toy sequence tasks a tiny transformer learns in seconds, deterministic given a seed.

Each task makes (inputs, targets) batches of token ids; targets are -100 where nothing is
scored. Tasks: copy, reverse, sort, modular addition, next-character language model on a
bundled text, and masked fill-in-the-blank (the self-supervised task of seed 002).

No validation example is also a training example (`seen_in_training` counts them): digit
strings are split by a hash of the string, sums by pair, text by paragraph, and validation text
windows equal to a training window are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor

IGNORE = -100
CONTEXT = 8  # next_char: characters of context before scoring starts
TEXT_PATH = Path(__file__).with_name("fables.txt")  # one paragraph a line, never repeated
HELD_OUT_EVERY = 5  # text: one paragraph in five is validation
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


def _held_out(digits: Tensor, seed: int) -> Tensor:
    """True for the digit strings reserved for validation: a fixed pseudo-random fifth of all
    strings (a hash of the string), so no validation string can ever be drawn for training."""
    weights = torch.randint(
        1, 2**20, (digits.shape[1],), generator=torch.Generator().manual_seed(seed)
    )
    return (digits * weights).sum(1) % 1_000_003 % 5 == 0


def _split(spec: TaskSpec, make) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Draw digit strings, training ones outside the held-out fifth, validation ones inside it."""
    gen = torch.Generator().manual_seed(spec.seed)
    train, val = [], []
    for _ in range(1000):  # ends in a round or two: about a fifth of draws are held out
        d = _digits(spec, spec.n_train + spec.n_val, gen)
        held = _held_out(d, spec.seed)
        train.append(d[~held])
        val.append(d[held])
        if sum(map(len, train)) >= spec.n_train and sum(map(len, val)) >= spec.n_val:
            break
    return *make(torch.cat(train)[: spec.n_train]), *make(torch.cat(val)[: spec.n_val])


def _per_position(spec: TaskSpec, transform, notes: str) -> SequenceTask:
    """Encoder tasks: read the digits, write transform(digits) at the same positions."""
    vocab = [str(i) for i in range(spec.n_symbols)]
    split = _split(spec, lambda d: (d, transform(d)))
    return SequenceTask(spec, vocab, *split, causal=False, notes=notes)


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

    def make(d: Tensor) -> tuple[Tensor, Tensor]:
        seq = torch.cat([d, torch.full((len(d), 1), sep), d], 1)  # (n, 2T+1)
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


def _text(seed: int) -> tuple[list[str], Tensor, Tensor]:
    """(vocabulary, training ids, validation ids) of the bundled fables, split by paragraph.

    One paragraph in five (which ones depends on the seed) is held out whole: no validation
    window can contain a character of training text. Paragraphs are joined by a space.
    """
    paragraphs = TEXT_PATH.read_text(encoding="utf-8").strip().split("\n")
    vocab = sorted(set(" ".join(paragraphs)))
    index = {c: i for i, c in enumerate(vocab)}
    held = seed % HELD_OUT_EVERY

    def ids(part: list[str]) -> Tensor:
        return torch.tensor([index[c] for c in " ".join(part)])

    train = [p for i, p in enumerate(paragraphs) if i % HELD_OUT_EVERY != held]
    val = [p for i, p in enumerate(paragraphs) if i % HELD_OUT_EVERY == held]
    return vocab, ids(train), ids(val)


def _windows(source: Tensor, width: int, n: int, gen: torch.Generator, every: bool) -> Tensor:
    """n windows of `width` ids: at random starts, or (every=True) at all starts shuffled."""
    last = len(source) - width + 1
    starts = (
        torch.randperm(last, generator=gen)
        if every
        else torch.randint(0, last, (n,), generator=gen)
    )
    return torch.stack([source[s : s + width] for s in starts.tolist()])


def _unseen(
    train: tuple[Tensor, Tensor], val: tuple[Tensor, Tensor], n: int
) -> tuple[Tensor, Tensor]:
    """The first n validation examples whose (input, target) pair is no training example."""
    seen = set(map(tuple, torch.cat(train, 1).tolist()))
    keep = torch.tensor(
        [tuple(r) not in seen for r in torch.cat(val, 1).tolist()], dtype=torch.bool
    )
    return val[0][keep][:n], val[1][keep][:n]


def seen_in_training(task: SequenceTask) -> Tensor:
    """(N_val,) True where a validation example (input and target) is also a training example."""
    seen = set(map(tuple, torch.cat([task.train_x, task.train_y], 1).tolist()))
    rows = torch.cat([task.val_x, task.val_y], 1).tolist()
    return torch.tensor([tuple(r) in seen for r in rows], dtype=torch.bool)


def _next_char(spec: TaskSpec) -> SequenceTask:
    """Decoder: predict each next character of windows of the bundled fables.

    Validation windows come from held-out paragraphs (see `_text`), each at most once and never
    equal to a training window. The first CONTEXT characters of a window are not scored.
    """
    vocab, train_ids, val_ids = _text(spec.seed)
    gen = torch.Generator().manual_seed(spec.seed)

    def pairs(w: Tensor) -> tuple[Tensor, Tensor]:
        y = w[:, 1:].clone()
        y[:, : min(CONTEXT, spec.length // 2)] = IGNORE
        return w[:, :-1], y

    train = pairs(_windows(train_ids, spec.length + 1, spec.n_train, gen, every=False))
    val = pairs(_windows(val_ids, spec.length + 1, spec.n_val, gen, every=True))
    return SequenceTask(
        spec,
        vocab,
        *train,
        *_unseen(train, val, spec.n_val),
        causal=True,
        notes="Short fables written for AttnViz; validation windows come from paragraphs never "
        "trained on.",
        extra={"text": TEXT_PATH.read_text(encoding="utf-8")},
    )


def _fill_blank(spec: TaskSpec) -> SequenceTask:
    """Encoder, self-supervised: a window of the fables with one character hidden as '_'."""
    vocab, train_ids, val_ids = _text(spec.seed)
    vocab, blank = vocab + ["_"], len(vocab)
    gen = torch.Generator().manual_seed(spec.seed)

    def hide(seq: Tensor) -> tuple[Tensor, Tensor]:
        n = len(seq)
        hidden = torch.randint(1, spec.length - 1, (n,), generator=gen)  # context on both sides
        rows = torch.arange(n)
        x, y = seq.clone(), torch.full_like(seq, IGNORE)
        x[rows, hidden] = blank
        y[rows, hidden] = seq[rows, hidden]
        return x, y

    train = hide(_windows(train_ids, spec.length, spec.n_train, gen, every=False))
    val = hide(_windows(val_ids, spec.length, spec.n_val, gen, every=True))
    return SequenceTask(
        spec,
        vocab,
        *train,
        *_unseen(train, val, spec.n_val),
        causal=False,
        notes="Self-supervised, as BERT is trained: fill in the hidden character. Validation "
        "windows come from paragraphs never trained on.",
        extra={"text": TEXT_PATH.read_text(encoding="utf-8")},
    )
