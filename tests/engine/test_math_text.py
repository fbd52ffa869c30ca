"""A question as the stage's veil shows it (attnviz.lessons.math_text.plain): its formulas as
the characters they draw, never LaTeX's source. The expected texts are written out by hand;
every bundled question's veil text is checked to hold no LaTeX left over."""

from __future__ import annotations

import re

import pytest

from attnviz.lessons.loader import bundled_lessons
from attnviz.lessons.math_text import plain


@pytest.mark.parametrize(
    ("markdown", "shown"),
    [
        (
            r"Without $\div\sqrt{d_k}$ ($d_k = 64$), what do the rows look like?",
            "Without ÷√(dₖ) (dₖ = 64), what do the rows look like?",
        ),
        (r"at $T = 100$?", "at T = 100?"),
        (r"$A_1 - \lambda A_2$ with $\lambda > 0$", "A₁ - λA₂ with λ > 0"),
        (r"$\mathrm{softmax}(QK^\top)$ of $x^2$", "softmax(QK^⊤) of x²"),
        ("the **five** weights of `W_q`", "the five weights of W_q"),
        ("a snake_case word and 50% of it", "a snake_case word and 50% of it"),
    ],
)
def test_a_formula_reads_as_the_characters_it_draws(markdown, shown):
    assert plain(markdown) == shown


LATEX_LEFT = re.compile(r"\\[A-Za-z]|[{}$]|\b(div|sqrt|frac|lambda|top)\b")


def test_no_bundled_question_shows_latex_on_the_veil():
    prompts = [
        step.question.prompt
        for lesson in bundled_lessons().values()
        for step in lesson.steps
        if step.question is not None
    ]
    assert len(prompts) >= 40
    left = [(p, plain(p)) for p in prompts if LATEX_LEFT.search(plain(p))]
    assert left == []
