"""Answers a lesson's question computes from the live page (`answer = "computed:<name>"`), so a
question stays right on the student's own input. A page publishes its scene's answers
(attnviz.topics.scene: `scene.answers(result, values)`) once it has its result (`publish`);
the presenter's question is filled in after the page has run (app.py), from what the page
published in that same run.

Names (see attnviz.lessons.loader): `top_key` (soft select: the row with the largest weight;
self-attention: the patch query row i weights most), `top_token` (text, pretrained: the token
the query token weights most in the chosen head) and `attention_row` (text, pretrained, language
model: that head's row over the tokens; a predict-the-attention question: students tap a token)."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from attnviz.topics.scene import Answer

FACTS = "_lesson_facts"


def forget() -> None:
    """Drop what the previous run published (called before the page runs)."""
    st.session_state.pop(FACTS, None)


def publish(answers: Mapping[str, Answer]) -> None:
    """What the page shows now: for each question name, the answer and the options to offer
    (and, for `attention_row`, the head's weights over them)."""
    st.session_state.setdefault(FACTS, {}).update(answers)


def computed(name: str) -> Answer | None:
    """The Answer the page published in this run for `name`, or None."""
    return st.session_state.get(FACTS, {}).get(name)
