"""Typed answers in a live classroom room (attnviz.lessons.typed_answers): on a phone, a word or a
number typed in a box and sent, with how sure the student is (1–5, optional, also offered
beside a question's option buttons); on the projector after Reveal, the class's words beside the
model's next tokens (the presenter may hide a word; words in the lesson folder's
`hidden_words.txt` start hidden), or the class's numbers as a histogram with the true value.
Whatever a phone typed is shown as escaped Markdown, a figure's escaped label or a table cell,
never as HTML, a link or a formula."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import streamlit as st

from attnviz.classroom import RoomState, VoteResult
from attnviz.classroom.views import vote_note
from attnviz.io.user_text import md_literal
from attnviz.lessons.loader import LESSONS_DIR
from attnviz.lessons.typed_answers import (
    CHOICE,
    MAX_NUMBER_TEXT,
    MAX_WORD,
    SURE_WORDS,
    WORDS,
    problem,
)
from attnviz.ui.lecture.store import attempt

HIDDEN_FILE = "hidden_words.txt"  # one word a line, '#' starts a comment
MY_VOTES = "_classroom_my_votes"  # (code, step, round) -> (kind, message) after a vote
REFUSED = "_classroom_refused"  # why the last typed answer was refused (shown once, above the box)


@cache
def listed_words(folder: Path = LESSONS_DIR) -> frozenset[str]:
    """The words the lesson folder's list hides from every word cloud, compared without case."""
    try:
        text = (folder / HIDDEN_FILE).read_text(encoding="utf-8")
    except OSError:
        return frozenset()
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return frozenset(line.casefold() for line in lines if line)


def hidden_of(code: str, step: int) -> set[str]:
    """The words hidden on `step` of room `code`: the presenter's and the list's."""
    hidden, _ = attempt(lambda store: store.hidden_words(code, step), place=False)
    return {*(hidden or ()), *listed_words()}


def sure_picker(key: str, place=None) -> None:
    """ "How sure are you?" 1–5 as pills, optional (its value is read when the vote is sent)."""
    (place or st).pills(
        "How sure are you? (optional)",
        list(SURE_WORDS),
        format_func=lambda level: f"{level} {SURE_WORDS[level]}",
        key=key,
    )


def typed_ballot(state: RoomState, voter: str, found) -> None:
    """A phone's box for a word or a number, with how sure, and Send."""
    word = found.kind == WORDS
    if refused := st.session_state.pop(REFUSED, None):
        st.warning(refused)
    with st.form(f"room_typed_{found.step}_{found.number}", border=False):
        st.text_input(
            "Your word (what comes next)" if word else "Your number",
            max_chars=MAX_WORD if word else MAX_NUMBER_TEXT,
            placeholder="e.g. Paris" if word else "e.g. 42",
            key=f"room_typed_text_{found.number}",
        )
        if word:
            st.caption(
                "Case counts, as for the model: “Paris” and “paris” are two tokens. After a "
                "word the model reads yours with its space (␣Paris), as the projector shows it."
            )
        sure_picker(f"room_sure_{found.step}_{found.number}")
        st.form_submit_button(
            "Send",
            icon=":material/send:",
            type="primary",
            on_click=_send,  # before the panel's own rerun, which then says what became of it
            args=(state, voter, found),
        )


def _send(state: RoomState, voter: str, found) -> None:
    typed = st.session_state.get(f"room_typed_text_{found.number}") or ""
    level = st.session_state.get(f"room_sure_{found.step}_{found.number}")
    cast(state, voter, typed, found, level)


def cast(state: RoomState, voter: str, answer: str, found, level: int | None) -> None:
    """Send a vote (an option tapped or an answer typed) and remember what to tell the phone."""
    result, _ = attempt(
        lambda store: store.vote(state.code, voter, answer, state.step, found.number, level)
    )
    if result is None:
        return
    if result is VoteResult.UNKNOWN_OPTION and found.kind != CHOICE:  # say why, ask again
        st.session_state[REFUSED] = problem(found.kind)
        return
    key = (state.code, state.step, found.number)
    shown = md_literal(answer) if found.kind == CHOICE else md_literal(answer.strip(), 60)
    st.session_state.setdefault(MY_VOTES, {})[key] = vote_note(result, shown, found.kind)


def hide_control(code: str, key: str, step: int, words: list[str]) -> None:
    """The presenter's "Hide words": a multiselect over the step's words, saved to the room."""
    mine, _ = attempt(lambda store: store.hidden_words(code, step), place=False)
    chosen = st.multiselect(
        "Hide words from the cloud (phones too)",
        sorted(set(words) | set(mine or ())),
        default=list(mine or ()),
        key=f"room_hide_{step}",
        placeholder="Pick a word to hide",
    )
    for word in set(chosen) ^ set(mine or ()):
        attempt(lambda store, w=word: store.hide_word(code, key, step, w, w in chosen))


def number_truth(text: str | None) -> float | None:
    """A number question's written answer as a value (None for none)."""
    try:
        return None if text is None else float(text)
    except ValueError:
        return None
