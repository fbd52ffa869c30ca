"""What peer instruction's second vote changed, and how a class's "predict the attention" guesses
compare with a real head: plain functions over the store's answers (no Streamlit, no figures).

- `Shift` / `shift_of`: the voters who voted in both rounds of a step, as a matrix of moves from
  each round-1 option to each round-2 option, and how many moved to the right answer or away.
- `Guesses` / `guesses_of`: the class's share of taps per token beside the head's weights over
  the same tokens, their distance, and the most popular wrong guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Shift:
    """Moves between the two rounds: `matrix[i, j]` voters went from `before[i]` to `after[j]`."""

    before: tuple[str, ...]  # round 1's options (rows)
    after: tuple[str, ...]  # round 2's options (columns)
    matrix: np.ndarray  # (len(before), len(after)) ints
    answer: str | None

    @property
    def voters(self) -> int:
        """Voters who voted in both rounds."""
        return int(self.matrix.sum())

    @property
    def changed(self) -> int:
        """Voters whose round-2 option differs from their round-1 option."""
        same = sum(
            int(self.matrix[i, self.after.index(option)])
            for i, option in enumerate(self.before)
            if option in self.after
        )
        return self.voters - same

    @property
    def to_answer(self) -> int:
        """Voters who were wrong in round 1 and right in round 2."""
        return self._crossing(into=True)

    @property
    def from_answer(self) -> int:
        """Voters who were right in round 1 and wrong in round 2."""
        return self._crossing(into=False)

    def _crossing(self, into: bool) -> int:
        if self.answer is None:
            return 0
        right_before = np.array([option == self.answer for option in self.before])
        right_after = np.array([option == self.answer for option in self.after])
        rows, cols = (~right_before, right_after) if into else (right_before, ~right_after)
        return int(self.matrix[np.ix_(rows, cols)].sum())


def shift_of(
    moves: Mapping[tuple[str, str], int],
    before: Sequence[str],
    after: Sequence[str],
    answer: str | None = None,
) -> Shift:
    """The Shift of the store's `moves` ((round-1 option, round-2 option) -> voters) over the
    rounds' options in their order; a move naming an option not offered raises ValueError."""
    matrix = np.zeros((len(before), len(after)), dtype=int)
    for (first, second), count in moves.items():
        if first not in before or second not in after:
            raise ValueError(f"A move from {first!r} to {second!r} is not between the options.")
        matrix[list(before).index(first), list(after).index(second)] += int(count)
    return Shift(tuple(before), tuple(after), matrix, answer)


def shift_line(shift: Shift) -> str:
    """One sentence for the projector: who voted twice, who changed, who moved to the answer
    (plain text; options are not quoted in it, so nothing typed needs escaping)."""
    if shift.voters == 0:
        return "No one voted in both rounds yet."
    who = "student" if shift.voters == 1 else "students"
    line = f"{shift.changed} of {shift.voters} {who} who voted twice changed their answer"
    if shift.answer is None:
        return line + "."
    return (
        f"{line}: {shift.to_answer} moved to the right answer, "
        f"{shift.from_answer} moved away from it."
    )


@dataclass(frozen=True)
class Guesses:
    """The class's taps on tokens beside a head's weights over the same tokens."""

    tokens: tuple[str, ...]
    share: np.ndarray  # (T,) the class's votes per token / all votes (zeros when none voted)
    weights: np.ndarray  # (T,) the head's weights over the tokens, summing to 1
    votes: int
    distance: float  # total variation, ½ Σ |share − weights|, from 0 (alike) to 1
    top: str  # the token the head weights most
    wrong: tuple[str, int] | None  # the most tapped token other than `top`, and its votes


def guesses_of(counts: Mapping[str, int], weights: Sequence[float]) -> Guesses:
    """Guesses from one round's `counts` (token label -> taps, in the tokens' order) and the
    head's `weights` over the same tokens (renormalized to sum 1: a hidden [CLS] takes none)."""
    tokens = tuple(counts)
    row = np.asarray(weights, dtype=float)  # (T,)
    if row.shape != (len(tokens),) or row.min(initial=0.0) < 0 or row.sum() <= 0:
        raise ValueError("The head's weights must be one non-negative number per token.")
    row = row / row.sum()
    taps = np.array([int(counts[token]) for token in tokens], dtype=float)  # (T,)
    votes = int(taps.sum())
    share = taps / votes if votes else np.zeros_like(taps)
    distance = float(0.5 * np.abs(share - row).sum()) if votes else 1.0
    top = tokens[int(row.argmax())]
    wrong_taps = [(int(taps[i]), -i) for i, token in enumerate(tokens) if token != top]
    best = max(wrong_taps, default=(0, 0))
    wrong = None if best[0] == 0 else (tokens[-best[1]], best[0])
    return Guesses(tokens, share, row, votes, distance, top, wrong)


def guesses_line(found: Guesses) -> str:
    """One sentence for the projector (tokens quoted as plain text: shown with `st.text` or
    escaped by the caller)."""
    if found.votes == 0:
        return "No one tapped a token yet."
    line = (
        f"{_taps(found.votes)}; the head weights “{found.top}” most "
        f"({found.weights.max():.2f}); distance between the class and the head "
        f"{found.distance:.2f} (0: alike, 1: no overlap)"
    )
    if found.wrong is None:
        return line + "; no one tapped another token."
    token, taps = found.wrong
    return line + f"; the most popular wrong guess: “{token}” ({_taps(taps)})."


def _taps(count: int) -> str:
    return "1 tap" if count == 1 else f"{count} taps"
