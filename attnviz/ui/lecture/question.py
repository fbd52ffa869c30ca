"""A lesson step's question (presenter mode, attnviz.ui.lecture.presenter): predict, then reveal.
The page's figures stay veiled until Reveal; Reveal replaces the options by one line, the answer
and the prediction picked, above the explanation. Presented, the room votes on its phones and
its answers show after Reveal; played alone (`&alone=true`), Reveal is "Check my answer" and the
line says whether the pick was right."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from attnviz.classroom.typed_views import close_to
from attnviz.io.user_text import md_literal
from attnviz.lessons.model import Lesson, Step
from attnviz.lessons.typed import shown_answer
from attnviz.lessons.typed_answers import (
    MAX_WORD,
    NUMBER,
    WORDS,
    token_word,
    typed_number,
    typed_word,
)
from attnviz.topics.scene import Answer
from attnviz.ui.common.sidebar import css
from attnviz.ui.lecture.answers import computed
from attnviz.ui.lecture.position import alone
from attnviz.ui.lecture.typed import number_truth

PICKED = "_lesson_picked"  # revealed key -> the prediction picked when Reveal was pressed


def revealed(where: str) -> str:
    """The session key that says the question of step `where` ("<slug>:<n>") was revealed."""
    slug, number = where.rsplit(":", 1)
    return f"_revealed_{slug}_{number}"


def predict_then_reveal(lesson: Lesson, number: int, step: Step) -> None:
    """The question, then Reveal and the options on one line (the answer is computed from the
    live page when the lesson says `computed:<name>`); after Reveal the answer line and the
    explanation, in sight in the bar without scrolling."""
    question = step.question
    model = Answer(question.answer, question.options, value=number_truth(question.answer))
    if question.computed is not None:
        model = computed(question.computed)
        if model is None:
            st.warning("This page did not give the answer to compare with; look at the figure.")
            return
    if question.typed:  # as a student would type it: "+" for the top token "␣+", "51"
        model = replace(model, answer=shown_answer(question.kind, model))
    st.markdown(f"**Predict:** {question.prompt}")
    revealed_key = revealed(f"{lesson.slug}:{number}")
    if st.session_state.get(revealed_key):
        _answer(lesson, number, step, model, revealed_key)
    else:
        options = [] if question.typed else list(model.options)
        _asking(lesson, number, step, options, revealed_key)


def _answer(lesson: Lesson, number: int, step: Step, model: Answer, revealed_key: str) -> None:
    """After Reveal: the answer line, the explanation, the room's votes."""
    from attnviz.ui.lecture.reveal import room_answers

    picked = st.session_state.get(PICKED, {}).get(revealed_key)
    box = st.container(key="lesson_answer")  # no icon: an icon makes the box a line taller,
    # and the explanation's first line must show too
    if not alone():
        box.success(answer_line(model.answer, picked))
    elif is_right(step.question.kind, model, picked):
        box.success(checked_line(model.answer, model.answer))
    else:
        box.info(checked_line(model.answer, picked))
    if step.question.explain:
        st.markdown(step.question.explain)
    if not alone():
        room_answers(lesson.slug, number, model)  # the room's votes, if any


def is_right(kind: str, model: Answer, picked: str | None) -> bool:
    """Whether a student's own pick or typed guess is the answer (a number: within 10 %)."""
    if picked is None:
        return False
    if kind == NUMBER:
        guess = typed_number(picked)
        return guess is not None and model.value is not None and close_to(model.value)(guess)
    if kind == WORDS:
        return typed_word(picked) == token_word(model.answer)
    return picked == model.answer


def _asking(lesson: Lesson, number: int, step: Step, options: list, revealed_key: str) -> None:
    """Before Reveal: the page's figures veiled, Reveal, the room's vote controls, the pick."""
    from attnviz.ui.lecture.reveal import reveal_rounds
    from attnviz.ui.lecture.votes import vote_controls

    guess_key = f"lesson_guess_{lesson.slug}_{number}"
    if not step.views:  # a step with views veils them on its stage (attnviz.ui.lecture.stage)
        st.html(css("hide_figures"))
    boxed = alone() and step.question.typed  # a guess typed in a labelled box, then checked
    place = "bottom" if boxed else "center"
    row = st.container(horizontal=True, vertical_alignment=place, key="lesson_guess_row")
    label = "Reveal"
    if alone():
        label = "Check my answer" if options or step.question.typed else "Show the answer"
    if boxed:
        said = "Your word" if step.question.kind == WORDS else "Your number"
        row.text_input(said, max_chars=MAX_WORD, key=guess_key, width=220)
    if row.button(label, key="lesson_reveal", icon=":material/visibility:"):  # first: in
        if not alone():
            reveal_rounds(lesson.slug, number)  # the room's phones show the answers too
        if step.question.trained:  # the answer is the trained model: its recorded run's end
            from attnviz.ui.training.panel import reveal_trained_run  # lazily: imports torch

            reveal_trained_run(step)
        st.session_state[revealed_key] = True  # sight however many options follow
        st.session_state.setdefault(PICKED, {})[revealed_key] = st.session_state.get(guess_key)
        st.rerun()
    if not alone():  # live classroom: Open vote, again
        vote_controls(row, lesson.slug, number, options, step.question.kind)
    if options:
        row.radio(
            "Your prediction",
            options,
            index=None,
            horizontal=True,
            key=guess_key,
            label_visibility="collapsed",
        )


def answer_line(answer: str, picked: str | None) -> str:
    """One line of Markdown: the answer, and the prediction picked before Reveal (both shown as
    plain text: a computed answer is a token the user typed)."""
    line = f"Answer: **{md_literal(answer)}**"
    if picked is None:
        return line
    if picked == answer:
        return f"{line} — you picked it"
    return f"{line} — you picked {md_literal(picked)}"


def checked_line(answer: str, picked: str | None) -> str:
    """One line of Markdown for a student playing alone: right or not, and the answer (plain
    text, as in `answer_line`)."""
    if picked is None:
        return f"The answer: **{md_literal(answer)}**"
    if picked == answer:
        return f"Right: **{md_literal(answer)}**"
    return f"Not quite: the answer is **{md_literal(answer)}** (you picked {md_literal(picked)})"
