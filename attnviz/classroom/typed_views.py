"""What the projector says about typed answers (attnviz.lessons.typed_answers), as plain
functions over the store's counts and ballots (no Streamlit, no figures):

- words: the class's words against the model's likeliest next tokens (`WordsReveal`): the share
  of the class that named the model's top token, the class's favourite word and the probability
  the model gives it, the words a presenter or the lesson's list hid;
- numbers: the class's values against the true one (`NumbersReveal`): median, and how many lie
  off the chart;
- confidence: each answer split by how sure its voter was, and whether the sure ones moved.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from attnviz.classroom.reads import Ballot
from attnviz.lessons.typed_answers import shown_number, token_word

SURE_GROUPS = (("sure (4–5)", (4, 5)), ("in between (3)", (3,)), ("unsure (1–2)", (1, 2)))


@dataclass(frozen=True)
class WordsReveal:
    """The class's words (hidden ones left out, most frequent first) beside the model."""

    shown: dict[str, int]
    hidden: int  # answers whose word is hidden
    total: int  # every answer, hidden ones included
    top: str  # the model's likeliest next token, as a word
    named_top: int  # answers that named it
    favourite: str | None  # the class's most frequent shown word (None: no answer shown)
    favourite_chance: float | None  # the model's probability of it (None: not computed)

    @property
    def top_share(self) -> float:
        """The share of the class that named the model's top token (0 for no answer)."""
        return self.named_top / self.total if self.total else 0.0


def words_reveal(
    counts: Mapping[str, int],
    ranked: Sequence[tuple[str, float]],
    hidden: Collection[str],
    chances: Callable[[Sequence[str]], dict[str, float]] | None,
) -> WordsReveal:
    """`counts`: the round's answers (store.counts); `ranked`: the model's top tokens with their
    probabilities; `hidden`: words hidden (compared without case); `chances`: the model's
    probability of typed words (Answer.chances)."""
    if not ranked:
        raise ValueError("The model's next tokens are needed to compare the class's words with.")
    banned = {word.casefold() for word in hidden}
    shown = {w: n for w, n in counts.items() if w.casefold() not in banned and n > 0}
    total = sum(counts.values())
    top = token_word(ranked[0][0])
    favourite = max(shown, key=lambda w: (shown[w], w == top), default=None)
    chance = None
    if favourite is not None:
        known = {token_word(t): p for t, p in ranked}
        chance = known.get(favourite)
        if chance is None and chances is not None:
            chance = chances([favourite]).get(favourite)
    return WordsReveal(
        shown, total - sum(shown.values()), total, top, counts.get(top, 0), favourite, chance
    )


@dataclass(frozen=True)
class NumbersReveal:
    """The class's numbers against the true value."""

    values: tuple[float, ...]  # every answer
    truth: float | None
    median: float | None
    low: float  # the chart's range: the answers within 3 quartile spreads, and the true value
    high: float
    off_chart: int  # answers outside [low, high]


def numbers_reveal(counts: Mapping[str, int], truth: float | None) -> NumbersReveal:
    """`counts`: a number round's answers (canonical texts, store.counts)."""
    values = tuple(sorted(float(v) for v, n in counts.items() for _ in range(n)))
    median = statistics.median(values) if values else None
    ends = [] if truth is None else [truth]
    inside = list(values)
    if len(values) >= 4:  # a typo (90000 for 324) must not squash every other bar: answers
        q1, _, q3 = statistics.quantiles(values, n=4)  # beyond 3 quartile spreads of the
        fence = 3 * (q3 - q1)  # middle half lie off the chart (they are counted)
        inside = [v for v in values if q1 - fence <= v <= q3 + fence]
    ends += [min(inside), max(inside)] if inside else []
    low, high = (min(ends), max(ends)) if ends else (0.0, 1.0)
    off = sum(1 for v in values if not low <= v <= high)
    return NumbersReveal(values, truth, median, low, high, off)


def number_marks(found: NumbersReveal) -> list[tuple[float, str, bool]]:
    """The histogram's lines: (x, label, is the true value): the true value, the median."""
    marks = []
    if found.truth is not None:
        marks.append((found.truth, f"true {shown_number(found.truth)}", True))
    if found.median is not None:
        marks.append((found.median, f"median {shown_number(found.median)}", False))
    return marks


def by_sure(ballots: Sequence[Ballot], number: int, right: Callable[[str], bool]) -> list[tuple]:
    """(group, voters, right) for each group of SURE_GROUPS that voted in round `number`, and
    ("not said", …) for votes without a level: how often the sure were right."""
    votes = [b for b in ballots if b.number == number]
    rows = []
    for name, levels in (*SURE_GROUPS, ("not said", (None,))):
        group = [b for b in votes if b.sure in levels]
        if group:
            rows.append((name, len(group), sum(1 for b in group if right(b.answer))))
    return rows


def sure_moves(ballots: Sequence[Ballot]) -> list[tuple[str, int, int]]:
    """(group, voters in both rounds, of them changed their answer) by how sure they were in
    round 1: whether confident students moved."""
    first = {b.voter: b for b in ballots if b.number == 1}
    second = {b.voter: b for b in ballots if b.number == 2 and b.voter in first}
    rows = []
    for name, levels in (*SURE_GROUPS, ("not said", (None,))):
        both = [v for v in second if first[v].sure in levels]
        if both:
            moved = sum(1 for v in both if first[v].answer != second[v].answer)
            rows.append((name, len(both), moved))
    return rows


def close_to(truth: float | None, within: float = 0.1) -> Callable[[str], bool]:
    """Whether a typed number lies within `within` (10 %) of `truth` (at least ±0.5 when the
    truth is near 0): "right" for a number question."""
    if truth is None:
        return lambda answer: False
    margin = max(abs(truth) * within, 0.5)
    return lambda answer: abs(float(answer) - truth) <= margin


def words_line(found: WordsReveal) -> str:
    """One plain sentence under the word cloud."""
    if not found.total:
        return "No word was typed in this round."
    share = f"{found.named_top} of {found.total} named the model's top token “{found.top}”"
    line = f"{share} ({100 * found.top_share:.0f} %)."
    if found.favourite is not None and found.favourite_chance is not None:
        line += f" The class's favourite, “{found.favourite}”, has probability"
        line += f" {found.favourite_chance:.2f} under the model."
    if found.hidden:
        line += f" {found.hidden} answer{'s' if found.hidden > 1 else ''} hidden."
    return line


def numbers_line(found: NumbersReveal) -> str:
    """One plain sentence under the histogram."""
    if not found.values:
        return "No number was typed in this round."
    line = "" if found.truth is None else f"True value {shown_number(found.truth)} · "
    line += f"the class's median {shown_number(found.median)} · {len(found.values)} answers"
    if found.off_chart:
        line += f", {found.off_chart} off the chart"
    return line + "."


def sure_line(rows: Sequence[tuple[str, int, int]], right: str = "right") -> str:
    """ "Right, by how sure: sure (4–5) 9 of 12 · unsure (1–2) 2 of 8." ("" when nobody said
    how sure)."""
    if not rows or all(name == "not said" for name, _, _ in rows):
        return ""
    parts = [f"{name} {good} of {n}" for name, n, good in rows]
    return f"{right[0].upper()}{right[1:]}, by how sure: " + " · ".join(parts) + "."


def moves_line(rows: Sequence[tuple[str, int, int]]) -> str:
    """ "Changed their answer, by how sure in round 1: sure (4–5) 3 of 12 · unsure (1–2) 5 of
    8." ("" when nobody said how sure)."""
    if not rows or all(name == "not said" for name, _, _ in rows):
        return ""
    parts = [f"{name} {moved} of {n}" for name, n, moved in rows]
    return "Changed their answer, by how sure in round 1: " + " · ".join(parts) + "."
