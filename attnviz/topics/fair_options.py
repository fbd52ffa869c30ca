"""Options that do not tell the answer. Their kind (a number, a name among tokens): an answer that
is the only option of its kind is told by its shape; the lessons' fairness check
(attnviz.lessons.fairness) refuses such a question, and a scene that computes its options (the
language model's next token) picks them among the answer's kin. Their order: written with the
answer first (as authors do, 20 of 24 bundled questions) or ranked (a model's top tokens), the
first option would be the answer; `fair_order` shuffles them, the same way on every screen."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

NUMBER = re.compile(r"\d")
TOKEN_MARKS = " Ġ▁␣\"'"  # a token's leading space, as tokenizers and labels write it


def _is_name(option: str, tokens: bool) -> bool:
    """A name: among tokens, a word with a capital initial; in sentences (capitalised anyway),
    a capitalised word after the first."""
    said = [w.strip(TOKEN_MARKS) for w in option.split()]
    said = [w for w in said if w]
    later = said if tokens else said[1:]
    return any(w[:1].isupper() and w[1:].islower() for w in later)


def kinds(option: str, tokens: bool) -> set[str]:
    """{"number", "name"}, or part of it: what kind `option` is (`tokens`: the options are single
    words, a capital initial names)."""
    found = {"number"} if NUMBER.search(option) else set()
    return found | ({"name"} if _is_name(option, tokens) else set())


def _all_tokens(options: Sequence[str]) -> bool:
    return all(len(o.split()) == 1 for o in options)


def alone_of_its_kind(answer: str, options: Iterable[str]) -> str:
    """Why the options tell `answer` by its shape ("" when they do not): it is the only option
    with a number, or the only name among tokens."""
    options = list(options)
    if len(options) < 2 or answer not in options:
        return ""
    tokens = _all_tokens(options)
    for kind in sorted(kinds(answer, tokens)):
        if [o for o in options if kind in kinds(o, tokens)] == [answer]:
            return f"the answer {answer!r} is the only option with a {kind}"
    return ""


def kin_first(answer: str, candidates: Sequence[str], k: int) -> list[str]:
    """`answer` and k − 1 of `candidates` (in their order, the answer left out), those of the
    answer's kind first, then in the candidates' order: options that do not tell the answer."""
    others = list(dict.fromkeys(c for c in candidates if c != answer))  # each once
    tokens = _all_tokens([answer, *others])
    own = kinds(answer, tokens)
    kin = [c for c in others if own and own <= kinds(c, tokens)]
    rest = [c for c in others if c not in kin]
    chosen = set((kin + rest)[: k - 1])
    return [answer, *[c for c in others if c in chosen]]


def fair_order(options: Sequence[str], key: str) -> tuple[str, ...]:
    """`options` in an order drawn from `key` (e.g. the question's prompt) and the options
    themselves: the same on the projector, every phone and every run; unrelated to how they were
    written or ranked."""

    def draw(option: str) -> str:
        return hashlib.sha256(f"{key}\x00{option}".encode()).hexdigest()

    return tuple(sorted(options, key=draw))
