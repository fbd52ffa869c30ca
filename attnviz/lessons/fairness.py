"""Fair questions: what a lesson step says before Reveal must not give its answer away. The step's
title, its narration, what it says to point at and its page's "Try this" box are read before the
class predicts; none may hold the answer: a fixed answer's words that tell it from the other
options (most of them, or a phrase of two), or a computed answer's token (for a fixed answer,
the words the options share say nothing), in its words or in other words: words are compared by
their stem ("climbs" is "climb") and by meaning, through a table of the words the course uses
for one thing ("nearly even" is "almost uniform"). Nor may the options: an answer that is the only
one of its kind among them (the one number, the one name among tokens) is told by its shape."""

from __future__ import annotations

import re
from collections.abc import Iterable

from attnviz.lessons.model import Lesson, LessonError, Step
from attnviz.topics.fair_options import alone_of_its_kind
from attnviz.topics.registry import scene

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
# words the lessons use for one meaning: each stands for its group's first (after stemming)
SAME_MEANING = (
    ("uniform", "even", "evenly", "flat", "spread", "diffuse"),
    ("sharp", "peaked", "one-hot", "focused", "concentrated"),
    ("nearly", "almost", "about", "roughly", "close"),
    ("before", "previous", "preceding", "prior", "earlier"),
    ("after", "next", "following", "later"),
    ("rise", "climb", "grow", "increase"),
    ("fall", "drop", "decrease", "shrink"),
    ("wiggly", "jagged", "noisy", "chase"),
    ("zero", "0", "nothing", "none"),
    ("undefined", "break", "gap", "missing"),
    ("better", "higher"),
    ("worse", "lower"),
    ("itself", "self", "own"),
    ("diagonal", "identity"),
)
SUFFIXES = ("ing", "ed", "es", "s", "ly")
CANONICAL = {word: group[0] for group in SAME_MEANING for word in group}


def stem(word: str) -> str:
    """A word without its inflection ("climbs", "climbed", "climbing": "climb"), kept whole
    where that would leave fewer than 4 letters; then its group's word in SAME_MEANING."""
    if word in CANONICAL:
        return CANONICAL[word]
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return CANONICAL.get(word, word)


def written(text: str) -> list[str]:
    """The words of `text` as written, lower case, formulas' dollars and markup dropped."""
    plain = re.sub(r"[$*`_\\{}]", " ", text.lower())
    return [w.strip(".,:;") for w in WORD.findall(plain) if w.strip(".,:;")]


def words(text: str) -> list[str]:
    """The words of `text` by stem and meaning (`stem`), one for each of `written`'s."""
    return [stem(w) for w in written(text)]


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
    read = read_before_reveal(step, try_this)
    said, as_written = words(read), written(read)
    pairs = {pair: i for i, pair in enumerate(zip(said, said[1:], strict=False))}  # two at a time
    tells = telling(answer, list(options))
    if not tells:
        return ""
    at = next(
        (pairs[(a, b)] for a, b in zip(tells, tells[1:], strict=False) if (a, b) in pairs), None
    )
    if at is not None:
        phrase = f"{as_written[at]} {as_written[at + 1]}"
        return f"it says {phrase!r}, which tells the answer {answer!r}"
    found = [w for w in tells if w in said]
    if step.question and step.question.computed and found:  # a token: named among few others
        others = [o for o in options if o != answer]
        named = [o for o in others if set(words(o)) & set(said)]
        if len(named) * 2 < len(others):  # the answer stands out among the tokens it names
            return f"it names the answer {answer!r} and {len(named)} of {len(others)} others"
        return ""
    if len(tells) >= 2 and len(found) * 3 >= len(tells) * 2:
        shown = [as_written[said.index(w)] for w in found]
        return f"it says {', '.join(shown)}: the words of the answer {answer!r}"
    return ""


def unfair(step: Step) -> str:
    """Why the step's question gives its answer away ("" when it does not, or has no question):
    a computed answer as the step's page computes it in the step's settings (this runs the
    step's scene)."""
    question = step.question
    if question is None:
        return ""
    if question.computed:
        page = scene(step.page)
        values = page.values(step.params)
        found = page.answers(page.run(page.config(values)), values)[question.computed]
        return gives_away(step, found.answer, found.options, ())
    return gives_away(step, question.answer, question.options, ())


def check_fair(lesson: Lesson, name: str) -> None:
    """Raise LessonError, on the step's line, for the first question that gives its answer away
    before Reveal (the Lessons page's checker; the suite checks the bundled lessons)."""
    for step in lesson.steps:
        why = unfair(step)
        if why:
            raise LessonError(name, step.line, f"the question gives its answer away: {why}")
