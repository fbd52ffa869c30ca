"""What a live classroom room sees once the presenter presses Reveal (nothing of it before: a
round's votes stay hidden from phones and the projector until then, only their count shows).

The projector: a dialog opened once at Reveal (and again from "The room's answers") with the
room's votes per option beside the model's answer, and after a second round who moved from which
option to which (the shift chart, attnviz.classroom.shift); for a predict-the-attention question
(`Question.taps_a_token`) the class's taps per token as heatmap rows beside the real head's row,
with their distance and the most popular wrong guess. The phones: the votes per option. Options
are text a person may have typed (a token): figures escape them, sentences are plain text."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from attnviz.classroom.shift import guesses_line, guesses_of, shift_line, shift_of
from attnviz.classroom.views import count_line, round_counts
from attnviz.figures.base import scale_fonts
from attnviz.figures.classroom import votes_figure
from attnviz.figures.classroom_reveal import guesses_figure, shift_figure
from attnviz.io.user_text import md_literal
from attnviz.lessons.typed_answers import CHOICE
from attnviz.topics.scene import Answer
from attnviz.ui.common.figures import as_tables
from attnviz.ui.common.settings import settings
from attnviz.ui.lecture.room import room_of
from attnviz.ui.lecture.store import attempt
from attnviz.ui.lecture.typed_reveal import draw_typed, sure_lines

SHOW_ANSWERS = "_classroom_show_answers"  # (slug, step) whose room's answers are open until closed
FIGURE_CONFIG = {"displayModeBar": False}
FIGURE_PX = 380  # a projector's figure in the dialog: with its header and a sentence, in 720 px


def reveal_rounds(slug: str, number: int) -> None:
    """On Reveal: close the step's rounds and show their answers on the phones too."""
    room = room_of(slug)
    if room is None:
        return
    code, key = room
    asked, _ = attempt(lambda store: store.results(code, number))
    for found, _ in asked or []:
        attempt(lambda store, n=found.number: store.reveal(code, key, number, n))
    if asked:
        st.session_state[SHOW_ANSWERS] = (slug, number)


def room_answers(slug: str, number: int, model: Answer) -> None:
    """After Reveal, the room's answers beside the model's (`model`: its answer, and a
    predict-the-attention question's head row over the tokens, `weights`, or a typed question's
    next tokens or true value): a dialog opened once at Reveal (`reveal_rounds`), and a button
    that opens it again."""
    room = room_of(slug)
    if room is None:
        return
    asked, _ = attempt(lambda store: store.results(room[0], number))
    if not asked:
        return
    again = st.button("The room's answers", key="room_answers", icon=":material/bar_chart:")
    if again:
        st.session_state[SHOW_ANSWERS] = (slug, number)
    if st.session_state.get(SHOW_ANSWERS) == (
        slug,
        number,
    ):  # drawn on every rerun until closed: a rerun that
        _answers_dialog(room[0], asked, model, number)  # skipped it would close it


def _dismissed() -> None:
    st.session_state.pop(SHOW_ANSWERS, None)  # closed with × or Esc


@st.dialog("The room's answers", width="large", on_dismiss=_dismissed)
def _answers_dialog(code, asked, model: Answer, number: int) -> None:
    answer, weights = model.answer, model.weights
    total = " · ".join(f"round {n}: {count_line(sum(c.values()))}" for n, c in round_counts(asked))
    st.markdown(f"The model's answer: **{md_literal(answer)}** · {total}" if answer else total)
    if asked[-1][0].kind != CHOICE:
        draw_typed(code, number, asked, model, f"room_typed_{number}", draw)
    elif weights is not None:
        draw_guesses(asked, weights, key=f"room_guesses_{number}")
    elif len(asked) > 1:
        left, right = st.columns(2)
        with left:
            draw_answers(asked, answer, key=f"room_answers_{number}")
        with right:
            draw_shift(code, number, asked, answer, key=f"room_shift_{number}")
    else:
        draw_answers(asked, answer, key=f"room_answers_{number}")
    if weights is not None and len(asked) > 1:
        st.markdown(_shift_of(code, number, asked, answer)[1])
    if asked[-1][0].kind == CHOICE and answer:  # how the sure did, and whether they moved
        lines: list[str] = []
        sure_lines(code, number, asked, lambda picked: picked == answer, "right", lines)
        st.markdown("  \n".join(md_literal(line) for line in lines if line))


def draw_answers(
    asked, answer: str | None, key: str, phone: bool = False, lettered: bool = True
) -> None:
    """The bar chart of the rounds in `asked` (store.results), bars across so that long options
    read whole (`lettered`: A, B, … before each, as on the shift chart's axes); the fonts follow
    lecture mode."""
    rounds = round_counts(asked)
    height = 130 + 45 * len(rounds[0][1]) * len(rounds) if phone else FIGURE_PX
    chars = 34 if phone else 44
    figure = votes_figure(rounds, answer, height, True, lettered, title_chars=chars)
    draw(figure, key)


def draw_shift(code: str, number: int, asked, answer: str | None, key: str) -> None:
    """The shift chart of the step's two rounds and its sentence."""
    shift, line = _shift_of(code, number, asked, answer)
    if shift is None:
        return
    draw(shift_figure(shift.before, shift.after, shift.matrix, answer, FIGURE_PX), key)
    st.markdown(line)


def _shift_of(code: str, number: int, asked, answer: str | None):
    """(Shift, its sentence) of the step's two rounds; (None, "") when the store did not answer."""
    moves, _ = attempt(lambda store: store.moves(code, number))
    if moves is None:
        return None, ""
    (first, _), (second, _) = asked[0], asked[-1]
    shift = shift_of(moves, first.options, second.options, answer)
    return shift, md_literal(shift_line(shift))


def draw_guesses(asked, weights: Sequence[float], key: str) -> None:
    """Predict the attention: the latest round's taps (and round 1's, after a second round)
    beside the head's row, and a sentence with their distance and the most popular wrong guess."""
    latest = guesses_of(asked[-1][1], weights)
    taps = [("the class's taps", latest.share)]
    if len(asked) > 1:
        taps = [("round 1's taps", guesses_of(asked[0][1], weights).share)]
        taps.append(("round 2's taps", latest.share))
    draw(guesses_figure(latest.tokens, taps, latest.weights, latest.votes), key)
    st.markdown(md_literal(guesses_line(latest)))


def draw(figure, key: str) -> None:
    """A figure of the reveal, its fonts following lecture mode, and its tables if asked."""
    figure = scale_fonts(figure, settings().font_scale)
    st.plotly_chart(figure, config=FIGURE_CONFIG, key=key, width="stretch")
    if settings().tables:  # "Figures as tables too": the text alternative here as everywhere
        as_tables(figure)
