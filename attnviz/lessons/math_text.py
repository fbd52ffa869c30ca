"""A lesson's Markdown as plain text, for where only text can go (the stage's veil, which shows
a question as text, never as HTML): each $…$ formula turned into the characters it draws
(pylatexenc: `\\div\\sqrt{d_k}` reads "÷√(dₖ)"), a one-character subscript or superscript as its
Unicode form where there is one, and no emphasis marks."""

from __future__ import annotations

import re

from pylatexenc.latex2text import LatexNodes2Text

_LATEX = LatexNodes2Text(math_mode="text")
_SUB = str.maketrans("0123456789aehijklmnoprstuvx+-=()", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₊₋₌₍₎")
_SUP = str.maketrans("0123456789+-=()in", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁱⁿ")
_FORMULA = re.compile(r"\$([^$]+)\$")


def _script(table: dict, mark: str, char: str) -> str:
    """`char` as the sub- or superscript `table` maps it to; as written when it has none."""
    raised = char.translate(table)
    return raised if raised != char else mark + char


def _scripts(text: str) -> str:
    """x_k -> xₖ, x^2 -> x², where the character has a Unicode sub- or superscript."""
    text = re.sub(r"_(\w)(?!\w)", lambda m: _script(_SUB, "_", m.group(1)), text)
    return re.sub(r"\^(\w)(?!\w)", lambda m: _script(_SUP, "^", m.group(1)), text)


def formula_text(latex: str) -> str:
    """One formula (without its dollars) as the characters it draws, a relation spaced as
    TeX spaces it ("λ > 0": the space after a command word is eaten in TeX's source)."""
    text = _scripts(_LATEX.latex_to_text(latex))
    return re.sub(r" *([<>=≤≥≠]) *", r" \1 ", text).strip()


def plain(markdown: str) -> str:
    """Markdown as plain text: formulas drawn in characters, emphasis and code marks dropped
    ("at $T = 100$" reads "at T = 100")."""
    parts = _FORMULA.split(markdown)  # text, formula, text, …
    return "".join(
        formula_text(part) if i % 2 else re.sub(r"[*`]|(?<!\w)_|_(?!\w)", "", part)
        for i, part in enumerate(parts)
    )
