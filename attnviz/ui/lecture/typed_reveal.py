"""The room's typed answers once revealed (attnviz.ui.lecture.reveal calls it for a round of kind
words or number): on the projector, the class's words beside the model's next tokens, or the
class's numbers with the true value; who named the model's answer, split by how sure they were;
after a second round, how the class moved; the presenter's "Hide words". On a phone, the class's
words or numbers alone (the model's answer is on the projector)."""

from __future__ import annotations

import streamlit as st

from attnviz.classroom import typed_views as tv
from attnviz.classroom.views import round_counts
from attnviz.figures.classroom_typed import model_figure, numbers_figure, words_figure
from attnviz.io.user_text import md_literal
from attnviz.lessons.typed_answers import WORDS, token_word
from attnviz.topics.scene import Answer
from attnviz.ui.common.settings import settings
from attnviz.ui.lecture.store import attempt
from attnviz.ui.lecture.typed import hidden_of, hide_control

PHONE_PX, PROJECTOR_PX, WORDS_PX = 300, 340, 430  # the model's 10 rows, read at the back


def draw_typed(code: str, step: int, asked, model: Answer | None, key: str, draw, phone=False):
    """The latest round of `asked` (store.results) as words or numbers (see the docstring);
    `model`: the model's side on the projector (None on a phone); `draw(figure, key)` draws a
    figure as the rest of the reveal does."""
    kind = asked[-1][0].kind
    height = PHONE_PX if phone else PROJECTOR_PX
    chars = 34 if phone else 44
    if kind == WORDS:
        height = height if phone else WORDS_PX
        _words(code, step, asked, model, key, height, chars, phone, draw)
    else:
        _numbers(code, step, asked, model, key, height, chars, phone, draw)


def _words(code, step, asked, model, key, height, chars, phone, draw) -> None:
    counts = asked[-1][1]
    hidden = hidden_of(code, step)
    ranked = () if model is None else model.ranked
    if not ranked:  # a phone: the class's words only
        shown = {w: n for w, n in counts.items() if w.casefold() not in hidden}
        draw(words_figure(shown, "", height, chars), key)
        return
    chances = None if model is None else model.chances
    found = tv.words_reveal(counts, ranked, hidden, chances)
    left, right = st.columns(2)
    with left:
        lead = "␣" if ranked[0][0] != token_word(ranked[0][0]) else ""  # after a space
        draw(words_figure(found.shown, found.top, height, chars, lead), key)
    with right:
        tokens, probs = zip(*ranked, strict=True)
        typed = [counts.get(token_word(t), 0) for t in tokens]
        draw(model_figure(tokens, probs, typed, height, chars), f"{key}_model")
    lines = [tv.words_line(found)]
    if len(asked) > 1:
        before = tv.words_reveal(asked[0][1], ranked, hidden, None)
        lines.append(
            f"Named the top token: round 1 {100 * before.top_share:.0f} % → round 2 "
            f"{100 * found.top_share:.0f} %."
        )
    sure_lines(code, step, asked, lambda answer: answer == found.top, "named it", lines)
    st.markdown("  \n".join(md_literal(line) for line in lines if line))
    if not phone:
        _hide(code, step, counts)
    if settings().tables:
        st.dataframe({"word": list(counts), "answers": list(counts.values())}, hide_index=True)


def _numbers(code, step, asked, model, key, height, chars, phone, draw) -> None:
    truth = None if model is None else model.value
    rounds = [(n, tv.numbers_reveal(c, truth)) for n, c in round_counts(asked)]
    latest = rounds[-1][1]
    values = [(n, found.values) for n, found in rounds]
    span = (latest.low, latest.high)
    draw(numbers_figure(values, span, tv.number_marks(latest), height, chars), key)
    lines = [tv.numbers_line(latest)]
    if len(rounds) > 1:
        first = rounds[0][1]
        lines.append(
            f"The class's median: round 1 {tv.shown_number(first.median)} → round 2 "
            f"{tv.shown_number(latest.median)}."
        )
    if truth is not None:
        sure_lines(code, step, asked, tv.close_to(truth), "within 10 % of it", lines)
    st.markdown("  \n".join(md_literal(line) for line in lines if line))
    if settings().tables:
        values = asked[-1][1]
        st.dataframe({"number": list(values), "answers": list(values.values())}, hide_index=True)


def sure_lines(code, step, asked, right, what: str, lines: list[str]) -> None:
    """How the sure and the unsure did (`right(answer)`, said as `what`), and (two rounds)
    whether the sure ones moved, added to `lines` (nothing when nobody said how sure)."""
    ballots, _ = attempt(lambda store: store.ballots(code, step), place=False)
    if not ballots:
        return
    latest = asked[-1][0].number
    lines.append(tv.sure_line(tv.by_sure(ballots, latest, right), what))
    if len(asked) > 1:
        lines.append(tv.moves_line(tv.sure_moves(ballots)))


def _hide(code: str, step: int, counts) -> None:
    """The presenter's "Hide words", when this session holds the room's key."""
    from attnviz.ui.lecture.room import presenter_key

    key = presenter_key(code)
    if key is not None:
        hide_control(code, key, step, list(counts))
