"""The recurrence page's translation task: human dates ("23 nov 2026") to ISO ("2026-11-23"), and,
for comparison, the same date strings reversed character by character (the anti-diagonal).

Owns the character vocabulary (shared by inputs and outputs, PAD = 0, BOS, EOS, UNK), the seeded
train/validation split, padding, the checks on a typed date and the accuracy helpers. The formats
and the reference parser live in `attnviz.data.date_formats`.

The split is by calendar day: a fixed seeded fifth of all days 1950..2049 is held out, so no
validation day appears in training in any format. Validation examples do not change with
n_train. Built tasks are cached by spec: treat the returned tensors as read-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

import numpy as np
import torch
from torch import Tensor

from attnviz.data.date_formats import (
    FIRST_DAY,
    FORMAT_NAMES,
    FORMATS,
    LAST_DAY,
    MONTHS,
    WEEKDAYS,
    WORDY,
    read_date,
    render,
)

TASKS = ("dates", "reverse")
SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")
PAD, BOS, EOS, UNK = range(4)
_WORDS = " ".join(MONTHS + WEEKDAYS) + " st nd rd th of"
ALPHABET = "".join(sorted(set(_WORDS + _WORDS.title() + "0123456789 ,./-")))
VOCAB: tuple[str, ...] = SPECIALS + tuple(ALPHABET)
_INDEX = {c: i for i, c in enumerate(VOCAB) if i >= len(SPECIALS)}
# The longest date text: a 2-digit day in September (the longest month) on every weekday.
MAX_IN = max(len(render(date(2026, 9, d), f, True)) for d in range(24, 31) for f in FORMAT_NAMES)
ISO_LENGTH = 10  # YYYY-MM-DD
VAL_FRACTION = 0.2  # of all calendar days, held out for validation
MAX_TRAIN, MAX_VAL = 20_000, 5_000  # both below their pools of days: no day is drawn twice
PROBE_FORMAT = "d mon yyyy"
NOTES = {
    "dates": f"Human dates in {len(FORMATS)} formats to ISO: each output digit must be found in "
    "the input, wherever that format puts it.",
    "reverse": "The same date strings written backwards: output character i reads input "
    "character T−1−i, the anti-diagonal.",
}


@dataclass(frozen=True)
class DateTaskSpec:
    name: str = "dates"  # one of TASKS
    n_train: int = 5000
    n_val: int = 1000
    seed: int = 0

    def problems(self) -> list[str]:
        """Readable reasons this spec cannot be built (empty when it can)."""
        found = []
        if self.name not in TASKS:
            found.append(f"unknown date task {self.name!r}; choose one of {', '.join(TASKS)}")
        if not 10 <= self.n_train <= MAX_TRAIN:
            found.append(f"n_train must be between 10 and {MAX_TRAIN:,} (got {self.n_train})")
        if not 10 <= self.n_val <= MAX_VAL:
            found.append(f"n_val must be between 10 and {MAX_VAL:,} (got {self.n_val})")
        if self.seed < 0:
            found.append(f"seed must be 0 or more (got {self.seed})")
        return found


@dataclass
class DateTask:
    """A built date task. Rows of y are BOS + target + EOS, then PAD: a decoder reads
    y[:, :-1] and is scored on y[:, 1:]."""

    spec: DateTaskSpec
    train_x: Tensor  # (N, max_in) int64 input characters, PAD after train_x_len
    train_x_len: Tensor  # (N,) int64
    train_y: Tensor  # (N, max_out + 2) int64
    val_x: Tensor  # (M, max_in)
    val_x_len: Tensor  # (M,)
    val_y: Tensor  # (M, max_out + 2)
    vocab: tuple[str, ...]  # VOCAB, index = token id
    input_texts: list[str]  # (M,) validation inputs as text
    target_texts: list[str]  # (M,) their targets (ISO dates, or the input reversed)
    val_formats: tuple[str, ...]  # (M,) the format each validation input is written in
    probe: int  # index into val of the shown example: a lower-case "23 nov 2026"-like one
    notes: str  # one sentence for the page
    max_in: int  # input characters at most (MAX_IN)
    max_out: int  # target characters at most, without BOS/EOS (10 for dates, MAX_IN reversed)


def encode(text: str) -> list[int]:
    """Token ids of the characters of `text`; a character outside the vocabulary becomes UNK."""
    return [_INDEX.get(c, UNK) for c in text]


def decode(ids: Tensor | list[int]) -> str:
    """The text of token ids: stops at the first EOS, skips PAD and BOS, shows UNK as '�'."""
    out = []
    for i in ids.tolist() if isinstance(ids, Tensor) else ids:
        if i == EOS:
            break
        if i == UNK:
            out.append("\ufffd")
        elif i >= len(SPECIALS):
            out.append(VOCAB[i])
    return "".join(out)


def pad_rows(rows: list[list[int]], width: int) -> Tensor:
    """(N, width) int64 of the rows, PAD after each; ValueError if a row is longer than width."""
    out = np.full((len(rows), width), PAD, dtype=np.int64)
    for i, row in enumerate(rows):
        if len(row) > width:
            raise ValueError(f"a sequence of {len(row)} tokens does not fit in {width}")
        out[i, : len(row)] = row
    return torch.from_numpy(out)


def encode_inputs(texts: list[str], width: int = MAX_IN) -> tuple[Tensor, Tensor]:
    """((N, width) input ids padded with PAD, (N,) lengths) of texts, e.g. a typed date."""
    rows = [encode(t) for t in texts]
    return pad_rows(rows, width), torch.tensor([len(r) for r in rows], dtype=torch.int64)


def encode_targets(texts: list[str], max_out: int) -> Tensor:
    """(N, max_out + 2): BOS, the target's ids, EOS, then PAD."""
    return pad_rows([[BOS, *encode(t), EOS] for t in texts], max_out + 2)


def _split_days(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(training days, validation days) as offsets from FIRST_DAY: a seeded fifth is held out."""
    n_days = (LAST_DAY - FIRST_DAY).days + 1
    order = np.random.default_rng([seed, 0]).permutation(n_days)
    n_val = int(n_days * VAL_FRACTION)
    return order[n_val:], order[:n_val]


def _draw(pool: np.ndarray, n: int, rng: np.random.Generator) -> list[tuple[date, str, bool]]:
    """n (day, format, capitalised) from distinct days of `pool`; formats come in equal shares
    (each appears once n reaches their number), wordy ones half lower case, half capitalised."""
    offsets = rng.choice(pool, size=n, replace=False)
    formats = rng.permutation(np.arange(n) % len(FORMAT_NAMES))
    capital = rng.random(n) < 0.5
    return [
        (FIRST_DAY + timedelta(days=int(o)), FORMAT_NAMES[f], bool(c) and FORMAT_NAMES[f] in WORDY)
        for o, f, c in zip(offsets, formats, capital, strict=True)
    ]


def _texts(examples: list[tuple[date, str, bool]], name: str) -> tuple[list[str], list[str]]:
    """(inputs, targets) of drawn examples for task `name`."""
    inputs = [render(day, fmt, cap) for day, fmt, cap in examples]
    if name == "reverse":
        return inputs, [t[::-1] for t in inputs]
    return inputs, [day.isoformat() for day, _, _ in examples]


def _probe(examples: list[tuple[date, str, bool]]) -> int:
    """The first validation example like "23 nov 2026": lower case, a two-digit day (else 0)."""
    for i, (day, fmt, cap) in enumerate(examples):
        if fmt == PROBE_FORMAT and not cap and day.day >= 10:
            return i
    return 0


@lru_cache(maxsize=8)
def build_dates(spec: DateTaskSpec) -> DateTask:
    """Build (or fetch from the cache) the task a spec names; ValueError if it is invalid."""
    problems = spec.problems()
    if problems:
        raise ValueError("; ".join(problems))
    train_days, val_days = _split_days(spec.seed)
    train = _draw(train_days, spec.n_train, np.random.default_rng([spec.seed, 1]))
    val = _draw(val_days, spec.n_val, np.random.default_rng([spec.seed, 2]))
    max_out = MAX_IN if spec.name == "reverse" else ISO_LENGTH
    train_in, train_out = _texts(train, spec.name)
    val_in, val_out = _texts(val, spec.name)
    train_x, train_x_len = encode_inputs(train_in)
    val_x, val_x_len = encode_inputs(val_in)
    return DateTask(
        spec=spec,
        train_x=train_x,
        train_x_len=train_x_len,
        train_y=encode_targets(train_out, max_out),
        val_x=val_x,
        val_x_len=val_x_len,
        val_y=encode_targets(val_out, max_out),
        vocab=VOCAB,
        input_texts=val_in,
        target_texts=val_out,
        val_formats=tuple(fmt for _, fmt, _ in val),
        probe=_probe(val),
        notes=NOTES[spec.name],
        max_in=MAX_IN,
        max_out=max_out,
    )


def can_translate(text: str) -> bool:
    """Whether a typed text fits the model's input (not empty, at most MAX_IN characters)."""
    return bool(text.strip()) and len(text) <= MAX_IN


def check_input(text: str) -> list[str]:
    """Problems with a typed date, each a sentence for the page (empty when there are none).
    An empty or too long text cannot be translated (see can_translate); the others are
    warnings: unknown characters are read as UNK, and any text is still translated."""
    if not text.strip():
        return ["Type a date: the box is empty."]
    found = []
    if len(text) > MAX_IN:
        found.append(f"{len(text)} characters is too long: the model reads at most {MAX_IN}.")
    unknown = sorted(set(text) - set(ALPHABET))
    if unknown:
        names = ", ".join(c if c.isprintable() else repr(c) for c in unknown)
        found.append(f"Not in the vocabulary, each read as an unknown character: {names}.")
    _, why = read_date(text)
    if why:
        found.append(f"Not a date the task can read ({why}); the model still translates it.")
    return found


def _aligned(pred_ids: Tensor, target_ids: Tensor) -> Tensor:
    """pred_ids cut or PAD-extended to the width of target_ids: (N, T)."""
    n, t = target_ids.shape
    if pred_ids.shape[1] >= t:
        return pred_ids[:, :t]
    extra = torch.full((n, t - pred_ids.shape[1]), PAD, dtype=pred_ids.dtype)
    return torch.cat([pred_ids, extra], 1)


def exact_rows(pred_ids: Tensor, target_ids: Tensor) -> Tensor:
    """(N,) bool: every non-PAD target token (EOS included) predicted. (N, T) tensors, targets
    are y[:, 1:]; what a prediction holds where the target is PAD is not scored."""
    pred = _aligned(pred_ids, target_ids)
    return ((pred == target_ids) | (target_ids == PAD)).all(1)


def exact_match(pred_ids: Tensor, target_ids: Tensor) -> float:
    """Share of rows predicted exactly (see exact_rows); nan for no rows."""
    return float(exact_rows(pred_ids, target_ids).float().mean()) if len(target_ids) else np.nan


def token_accuracy(pred_ids: Tensor, target_ids: Tensor) -> float:
    """Share of non-PAD target tokens predicted right, over all rows; nan if there are none."""
    scored = target_ids != PAD
    hits = (_aligned(pred_ids, target_ids) == target_ids) & scored
    return float(hits.sum() / scored.sum()) if scored.any() else np.nan


def row_token_accuracy(pred_ids: Tensor, target_ids: Tensor) -> Tensor:
    """(N,) float: each row's share of non-PAD target tokens predicted right."""
    scored = target_ids != PAD
    hits = (_aligned(pred_ids, target_ids) == target_ids) & scored
    return hits.sum(1) / scored.sum(1).clamp(min=1)


def length_buckets(lengths: Tensor) -> dict[int, Tensor]:
    """{input length: (k,) indices of the examples that long}, lengths ascending."""
    return {int(n): torch.nonzero(lengths == n).flatten() for n in torch.unique(lengths)}


def accuracy_by_length(correct: Tensor, lengths: Tensor) -> list[tuple[int, float, int]]:
    """(length, mean, count) for each input length, from (N,) `correct` (bool, e.g. exact_rows,
    or a share per row, e.g. row_token_accuracy) and (N,) `lengths`: the page's
    accuracy-vs-length plot."""
    return [
        (n, float(correct[rows].float().mean()), len(rows))
        for n, rows in length_buckets(lengths).items()
    ]
