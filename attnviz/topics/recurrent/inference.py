"""What the recurrence page asks of a trained (or untrained) pair: translate a typed date with
both models (and the attention model's alignment), exact match by input length for both, and
the encoder's hidden states over time with what each state has read.

"What each state has read" is measured, not assumed: character s is blanked (its embedding
replaced by the PAD embedding, 0) and the change of every state t is recorded. A forward (left
to right) state cannot change for t < s, a backward one for t > s: the two triangles a one-way
and a two-way encoder differ by.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attnviz.data.date_formats import parse_human_date
from attnviz.data.dates import (
    BOS,
    EOS,
    PAD,
    DateTask,
    accuracy_by_length,
    can_translate,
    check_input,
    decode,
    encode_inputs,
    exact_rows,
    row_token_accuracy,
)
from attnviz.models.rnn import Seq2Seq, greedy_decode
from attnviz.topics.recurrent.task import BASELINE, TrainedRecurrent

ATTENTION = "with attention"
MODEL_NAMES = (ATTENTION, BASELINE)
SPACE = "␣"  # how a space is drawn on an axis


@dataclass(frozen=True)
class Translation:
    """A typed text through both models. Empty outputs and no alignment when it cannot be
    translated (`problems` says why)."""

    text: str
    problems: list[str]  # sentences for the page (empty, too long, unknown characters, ...)
    output: str  # the attention model's translation
    alignment: np.ndarray | None  # (len(output), Tin): row i, the step that wrote output[i]
    baseline_output: str  # the no-attention model's translation
    expected: str | None  # what the task's rule gives (None: not a date the task can read)


def shown_chars(text: str) -> list[str]:
    """Characters as axis labels: a space as SPACE."""
    return [SPACE if c == " " else c for c in text]


def expected_output(task_name: str, text: str) -> str | None:
    """The right answer by the task's rule: the ISO date, or the text reversed."""
    return text[::-1] if task_name == "reverse" else parse_human_date(text)


def written_steps(ids: list[int]) -> list[int]:
    """The decoding steps that wrote a character of `decode(ids)`: up to the first EOS, every
    step but those that wrote PAD or BOS (they write nothing; an untrained model often does)."""
    end = ids.index(EOS) if EOS in ids else len(ids)
    return [t for t in range(end) if decode([ids[t]])]


def _decode_one(model: Seq2Seq, text: str) -> tuple[str, np.ndarray | None]:
    """The greedy translation and its alignment (Tout, Tin): row i is the weights of the step
    that wrote character i of the translation (rows of steps that wrote nothing and of EOS
    dropped, so the rows and the characters labelling them stay together)."""
    x, lengths = encode_inputs([text])
    ids, align = greedy_decode(model, x, lengths, BOS, EOS)
    row = ids[0].tolist()
    steps = written_steps(row)
    out = "".join(decode([row[t]]) for t in steps)  # = decode(row)
    if align is None:
        return out, None
    return out, align[0, torch.tensor(steps, dtype=torch.long), : len(text)].numpy()


def translate(pair: TrainedRecurrent, text: str) -> Translation:
    """Both models' greedy translations of `text` and the attention model's alignment."""
    problems = check_input(text)
    expected = expected_output(pair.task.spec.name, text) if text.strip() else None
    if not can_translate(text):
        return Translation(text, problems, "", None, "", expected)
    output, align = _decode_one(pair.model, text)
    baseline_output, _ = _decode_one(pair.baseline, text)
    return Translation(text, problems, output, align, baseline_output, expected)


@dataclass(frozen=True)
class LengthScores:
    """One model's scores on the validation set, by input length (ascending)."""

    lengths: list[int]
    exact: list[float]  # share of dates written exactly
    characters: list[float]  # share of output characters written right
    counts: list[int]  # examples of that length


def length_accuracy(pair: TrainedRecurrent) -> dict[str, LengthScores]:
    """{model name: its LengthScores} over the whole validation set, greedy decoding."""
    task: DateTask = pair.task
    target = task.val_y[:, 1:]
    out = {}
    for name, model in zip(MODEL_NAMES, (pair.model, pair.baseline), strict=True):
        ids, _ = greedy_decode(model, task.val_x, task.val_x_len, BOS, EOS, target.shape[1])
        exact = accuracy_by_length(exact_rows(ids, target), task.val_x_len)
        chars = accuracy_by_length(row_token_accuracy(ids, target), task.val_x_len)
        out[name] = LengthScores(
            [n for n, _, _ in exact],
            [a for _, a, _ in exact],
            [a for _, a, _ in chars],
            [c for _, _, c in exact],
        )
    return out


@dataclass(frozen=True)
class EncoderReading:
    """The encoder's states for one text, split by direction, and what each state has read."""

    directions: list[str]  # ["forward"] or ["forward", "backward"]
    states: list[np.ndarray]  # per direction (d_hidden, Tin): unit × time
    read: list[np.ndarray]  # per direction (Tin, Tin): [t, s] = change of state t when s blanks


def read_encoder(model: Seq2Seq, text: str) -> EncoderReading:
    """Hidden states over time and the blank-one-character influence, per direction."""
    config = model.config
    x, lengths = encode_inputs([text], width=len(text))  # (1, Tin)
    n = len(text)
    blanked = x.repeat(n, 1)  # (Tin, Tin): row s has character s blanked
    blanked[torch.arange(n), torch.arange(n)] = PAD
    with torch.no_grad():
        states, _ = model.encoder(torch.cat([x, blanked]), lengths.repeat(n + 1))  # (1+Tin, Tin, H)
    base, moved = states[0], states[1:]
    directions = ["forward", "backward"] if config.bidirectional else ["forward"]
    h = config.d_hidden
    halves = [slice(i * h, (i + 1) * h) for i in range(len(directions))]
    change = [
        (moved[:, :, half] - base[None, :, half]).norm(dim=-1).T.numpy()  # (t, s)
        for half in halves
    ]
    return EncoderReading(directions, [base[:, half].T.numpy() for half in halves], change)


def reading_span(read: np.ndarray, tolerance: float = 1e-6) -> str:
    """Which characters a direction's states have read: "earlier", "later", or "all"."""
    upper = np.triu(read, 1).max(initial=0.0) > tolerance  # t < s: a later character moved it
    lower = np.tril(read, -1).max(initial=0.0) > tolerance
    return "all" if upper and lower else "later" if upper else "earlier"
