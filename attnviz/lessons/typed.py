"""Questions answered by typing rather than tapping (`kind = "words"` or `kind = "number"` in a
step's `[steps.question]`): what such a question may ask, checked when a lesson is read.

- `words`: "what will the model say next?" Each phone types a word; Reveal shows the class's
  words beside the model's ten likeliest next tokens. Its answer is a computed one the page's
  scene offers as words (`Scene.typed_answers`: the language model's `computed:next_token`).
- `number`: each phone types a number; Reveal draws the class's histogram with the true value and
  the median. Its answer is a number written in the file ("324") or a computed one the scene
  offers as a number (attention at scale's `computed:scores_kept`, the language model's
  `computed:first_token_share` in %).

Neither takes options. Every question also asks on the phones how sure each student is (1–5,
optional); that needs nothing in the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attnviz.lessons.typed_answers import (
    CHOICE,
    KINDS,
    NUMBER,
    WORDS,
    shown_number,
    token_word,
    typed_number,
)
from attnviz.topics.scene import Answer

COMPUTED_PREFIX = "computed:"


def problem(
    kind: object, answer: str, options: Sequence[str], offered: Mapping[str, str]
) -> str | None:
    """Why a question of `kind` with this answer and these options cannot be asked on a page
    whose scene offers `offered` (Scene.typed_answers) (None: it can)."""
    if kind not in KINDS:
        return f"kind must be one of {', '.join(repr(k) for k in KINDS)}, not {kind!r}"
    if kind == CHOICE:
        return None
    if options:
        return f'a question of kind "{kind}" is typed: it takes no options ([])'
    name = answer.removeprefix(COMPUTED_PREFIX) if answer.startswith(COMPUTED_PREFIX) else None
    if name is None and kind == NUMBER and typed_number(answer) is not None:
        return None
    if offered.get(name or "") != kind:
        names = [f'"{COMPUTED_PREFIX}{n}"' for n, k in offered.items() if k == kind]
        names += ["a number"] if kind == NUMBER else []
        allowed = " or ".join(names) if names else "none on this page"
        return f'a question of kind "{kind}" has the answer {allowed}, not {answer!r}'
    return None


def shown_answer(kind: str, found: Answer) -> str:
    """A computed answer as the question asks for it: a typed word as one would type the model's
    top token ("+" for "␣+"), a number as the projector writes it, else the option's label."""
    if kind == WORDS and found.ranked:
        return token_word(found.ranked[0][0])
    if kind == NUMBER and found.value is not None:
        return shown_number(found.value)
    return found.answer
