"""Peer instruction in a live classroom room: the presenter's "Open vote" (round 1), "Vote
again" (round 2, after discussing), the live count on a timer and, on Reveal, the room's answers
beside the model's (a grouped bar chart, attnviz.figures.classroom); the students' ballot: the
question's options as large buttons (one tap, one vote; the store refuses a second), then
"Your vote: …", and the room's answers once revealed. Options and votes are text a person may
have typed (a token): shown as button labels or escaped Markdown, never HTML."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from attnviz.classroom import RoomState, VoteResult
from attnviz.classroom.views import VOTE_LABELS, count_line, is_revealed, next_round, vote_note
from attnviz.io.user_text import md_literal
from attnviz.lessons.typed_answers import CHOICE
from attnviz.topics.scene import Answer
from attnviz.ui.lecture.reveal import draw, draw_answers
from attnviz.ui.lecture.room import room_of
from attnviz.ui.lecture.store import attempt
from attnviz.ui.lecture.typed import MY_VOTES, cast, number_truth, sure_picker, typed_ballot
from attnviz.ui.lecture.typed_reveal import draw_typed

POLL_S = 2.0  # the live count's and the phones' timer


def vote_controls(row, slug: str, number: int, options: Sequence[str], kind: str = CHOICE) -> None:
    """The presenter's "Open vote" / "Vote again" and the live count, in `row` (the question's
    row, beside Reveal); nothing without a room or for a choice without options (a typed
    question, `kind` words or number, has none)."""
    room = room_of(slug)
    if room is None or (kind == CHOICE and len(options) < 2):
        return
    code, key = room
    asked, _ = attempt(lambda store: store.results(code, number))
    if asked is None:
        return
    upcoming = next_round([found for found, _ in asked])
    if upcoming is not None:
        row.button(
            VOTE_LABELS[upcoming],
            key=f"room_vote_{upcoming}",
            icon=":material/how_to_vote:",
            on_click=_open_round,
            args=(code, key, number, list(options) if kind == CHOICE else [], upcoming, kind),
        )
    if asked:
        with row.container(key="room_count", width="content"):
            live_count(code, number)


def _open_round(
    code: str, key: str, number: int, options: list[str], round_number: int, kind: str
) -> None:
    attempt(lambda store: store.open_round(code, key, number, options, round_number, kind))


@st.fragment(run_every=POLL_S)
def live_count(code: str, number: int) -> None:
    """ "Round 2: 37 votes" for the step's latest round (one indexed read every POLL_S)."""
    asked, _ = attempt(lambda store: store.results(code, number))
    if not asked:
        return
    found, counts = asked[-1]
    state = "open" if found.is_open else "closed"
    total = sum(counts.values())
    st.markdown(f"**Round {found.number}** ({state}): **{count_line(total)}**")


def ballot(
    state: RoomState, voter: str, prompt: str, answer: str | None, taps: bool = False
) -> None:
    """The student's side of the step's question: the open round's options as buttons (`taps`:
    a predict-the-attention question, the sentence's tokens side by side), the vote cast, or
    the room's answers once revealed (`answer`: the lesson's, when it is written in the lesson;
    None when the model computes it on the presenter's page)."""
    found = state.open_round
    if found is not None and found.step == state.step:
        st.markdown(f"**{'Vote again' if found.number == 2 else 'Vote'}:** {prompt}")
        mine = st.session_state.get(MY_VOTES, {}).get((state.code, found.step, found.number))
        if mine is None:  # a reload: this device's vote is in the store
            earlier, _ = attempt(lambda store: store.my_vote(state.code, voter), place=False)
            mine = None if earlier is None else vote_note(VoteResult.ACCEPTED, md_literal(earlier))
        if mine is not None:
            kind, message = mine
            getattr(st, kind)(message)  # the option in it is escaped (`typed.cast`)
            return
        if found.kind == CHOICE:
            _options(state, voter, found, taps)
        else:
            typed_ballot(state, voter, found)
        return
    asked, _ = attempt(lambda store: store.results(state.code, state.step))
    if asked and is_revealed(asked):
        st.markdown(f"**The room's answers:** {prompt}")
        key = f"room_answers_{state.step}"
        if asked[-1][0].kind != CHOICE:  # the class's words or numbers (a written true value)
            model = None if answer is None else Answer(answer, (), value=number_truth(answer))
            draw_typed(state.code, state.step, asked, model, key, draw, phone=True)
        else:
            draw_answers(asked, answer, key, phone=True, lettered=not taps)
        if answer is None:
            st.caption("The model's answer is on the projector.")


def _options(state: RoomState, voter: str, found, taps: bool) -> None:
    """How sure (optional), then one button per option: stacked, or for `taps` the tokens in a
    row that wraps."""
    sure_picker(f"room_sure_{found.step}_{found.number}")
    if taps:
        st.caption("Tap the token you think the query weights most.")
    place = st.container(horizontal=True, key="room_tokens") if taps else st.container()
    for option in found.options:
        place.button(
            option,
            key=f"room_option_{found.number}_{option}",
            width="content" if taps else "stretch",
            on_click=_cast,
            args=(state, voter, option, found),
        )


def _cast(state: RoomState, voter: str, option: str, found) -> None:
    cast(
        state, voter, option, found, st.session_state.get(f"room_sure_{found.step}_{found.number}")
    )
