"""Answers a phone types instead of tapping an option: a word ("what will the model say next?")
or a number ("how many scores does the mask keep?"), and how sure the student is (1 to 5).

A round's kind is `CHOICE` (its options are labels; a vote is one of them), `WORDS` (a vote is
one word or short phrase, kept as typed: case and inner spaces matter, as they do to a
tokenizer) or `NUMBER` (a vote is a finite number, kept as canonical text so that "0.50",
".5" and "0,5" count as one answer). Plain functions: the store checks every vote with them,
the phones say what was refused with `problem`. Also how the model's side reads beside them: a
token as the word one would type (`token_word`), a true value as the projector writes it
(`shown_number`).
"""

from __future__ import annotations

import math
import re
import unicodedata

CHOICE, WORDS, NUMBER = "choice", "words", "number"
KINDS = (CHOICE, WORDS, NUMBER)
FREE_KINDS = (WORDS, NUMBER)
MAX_WORD = 40  # characters of a typed word: a token, a name, a short phrase
MAX_NUMBER_TEXT = 32
NUMBER_LIMIT = 1e12  # larger magnitudes are typos on a projector's question
SURE_LEVELS = (1, 2, 3, 4, 5)  # 1 "a guess" … 5 "certain"
SURE_WORDS = {1: "a guess", 2: "unsure", 3: "fairly sure", 4: "sure", 5: "certain"}
_SPACES = re.compile(r"\s+")
# "0,5" is a decimal comma; "1,000" could be a thousand or one: refused, not guessed at
_DECIMAL_COMMA = re.compile(r"^[+-]?\d*,(\d{1,2}|\d{4,})$")


def typed_word(text: object) -> str | None:
    """The word as stored: Unicode NFC, surrounding spaces dropped, inner runs of spaces one
    space; None for nothing, over MAX_WORD characters, or a control character, a line break or
    a lone surrogate in it."""
    if not isinstance(text, str) or len(text) > 4 * MAX_WORD:
        return None
    word = _SPACES.sub(" ", unicodedata.normalize("NFC", text)).strip()
    if not word or len(word) > MAX_WORD:
        return None
    if any(unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn") for c in word):
        return None
    return word


def typed_number(text: object) -> str | None:
    """The number as stored (`canonical`), from what a phone typed: spaces and thin spaces
    ignored, a trailing "%" dropped (the question says what unit it asks for), one decimal comma
    read as a point (not "1,000": a thousand, or one?); None for anything else, a non-finite
    value, or beyond ±NUMBER_LIMIT."""
    if isinstance(text, int | float):  # bool too
        text = repr(text)
    if not isinstance(text, str) or len(text) > MAX_NUMBER_TEXT:
        return None
    plain = "".join(c for c in text if not c.isspace()).removesuffix("%")
    if _DECIMAL_COMMA.match(plain):
        plain = plain.replace(",", ".")
    if not plain or any(c not in "0123456789+-.eE" for c in plain):
        return None
    try:
        value = float(plain)
    except ValueError:
        return None
    if not math.isfinite(value) or abs(value) > NUMBER_LIMIT:
        return None
    return canonical(value)


def canonical(value: float) -> str:
    """One text per number: "324", "0.25", "-3.5", "1e+11" (10 significant digits)."""
    value = float(value) + 0.0  # -0.0 reads as 0
    return format(value, ".10g")


def accepted(kind: str, text: object, options: tuple[str, ...] = ()) -> str | None:
    """The answer `text` as a round of `kind` stores it, or None if it cannot be one."""
    if kind == WORDS:
        return typed_word(text)
    if kind == NUMBER:
        return typed_number(text)
    return text if isinstance(text, str) and text in options else None


def problem(kind: str) -> str:
    """What a phone says when `accepted` refused its answer."""
    if kind == WORDS:
        return f"Type a word or a short phrase: 1 to {MAX_WORD} characters, on one line."
    if kind == NUMBER:
        return "Type a number, e.g. 42, 0.25 or 12.5 (no letters, formula or thousands comma)."
    return "That option is not in this vote any more; look at the question again."


def sure_level(value: object) -> int | None:
    """A confidence level 1–5 (None: not given). Anything else raises ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or value not in SURE_LEVELS:
        raise ValueError("How sure you are is 1 (a guess) to 5 (certain), or left out.")
    return int(value)  # type: ignore[call-overload]


def token_word(token: str) -> str:
    """A model token as the word a student would type for it: its leading space (" ", "␣" or
    SentencePiece's "▁") dropped, nothing else changed ("␣Berlin" is "Berlin")."""
    return token.lstrip(" ␣▁")


def shown_number(value: float | None) -> str:
    """A value as the projector writes it: "324", "41.3" (at most 3 significant decimals)."""
    if value is None:
        return "—"
    return f"{value:.0f}" if float(value).is_integer() or abs(value) >= 100 else f"{value:.3g}"
