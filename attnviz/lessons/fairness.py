"""Fair questions: what a lesson step says before Reveal must not give its answer away. The step's
title, its narration, what it says to point at and its page's "Try this" box are read before the
class predicts; none may hold the answer: a fixed answer's words that tell it from the other
options (most of them, or a phrase of two), or a computed answer's token (for a fixed answer,
the words the options share say nothing). Nor may the options: an answer that is the only one
of its kind among them (the one number, the one name among tokens) is told by its shape."""

from __future__ import annotations

import re
from collections.abc import Iterable

from attnviz.lessons.model import Step
from attnviz.topics.fair_options import alone_of_its_kind

STOP = {
    "the",
    "a",
    "an",
    "of",
    "to",
    "in",
    "on",
    "is",
    "are",
    "and",
    "or",
    "it",
    "its",
    "at",
    "by",
    "with",
    "all",
    "one",
    "for",
    "as",
    "be",
    "no",
    "yes",
    "not",
    "same",
    "each",
    "every",
    "than",
}
WORD = re.compile(r"[\w./=+−-]+")


def words(text: str) -> list[str]:
    """The words of `text`, lower case, formulas' dollars and markup dropped."""
    plain = re.sub(r"[$*`_\\{}]", " ", text.lower())
    return [w.strip(".,:;") for w in WORD.findall(plain) if w.strip(".,:;")]


def telling(answer: str, options: Iterable[str]) -> list[str]:
    """The answer's words that no other option has (what tells the answer from them)."""
    others = {w for option in options if option != answer for w in words(option)}
    return [w for w in words(answer) if w not in others and w not in STOP]


def read_before_reveal(step: Step, try_this: Iterable[str]) -> str:
    """Everything the class reads on the step before Reveal (besides the question itself)."""
    return " ".join([step.title, step.narration, step.point_at, *try_this])


def gives_away(step: Step, answer: str, options: Iterable[str], try_this: Iterable[str]) -> str:
    """Why the step's text or its options give `answer` away ("" when they do not)."""
    options = list(options)
    shape = alone_of_its_kind(answer, options)
    if shape:
        return shape
    said = words(read_before_reveal(step, try_this))
    pairs = set(zip(said, said[1:], strict=False))  # what the text says, two words at a time
    tells = telling(answer, list(options))
    if not tells:
        return ""
    phrase = next(
        (f"{a} {b}" for a, b in zip(tells, tells[1:], strict=False) if (a, b) in pairs), ""
    )
    if phrase:
        return f"it says {phrase!r}, which tells the answer {answer!r}"
    found = [w for w in tells if w in said]
    if step.question and step.question.computed and found:  # a token: named among few others
        others = [o for o in options if o != answer]
        named = [o for o in others if set(words(o)) & set(said)]
        if len(named) * 2 < len(others):  # the answer stands out among the tokens it names
            return f"it names the answer {answer!r} and {len(named)} of {len(others)} others"
        return ""
    if len(tells) >= 2 and len(found) * 3 >= len(tells) * 2:
        return f"it says {', '.join(found)}: the words of the answer {answer!r}"
    return ""
