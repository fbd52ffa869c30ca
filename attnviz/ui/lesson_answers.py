"""Answers a lesson's question computes from the live page (`answer = "computed:<name>"`), so a
question stays right on the student's own input. A page publishes, while it draws, the answer
and the options for each name it knows (`publish`); the presenter's question is filled in after
the page has run (app.py), from what the page published in that same run.

Names (see attnviz.ui.lessons.loader): `top_key` (soft select: the row with the largest weight;
self-attention: the patch query row i weights most) and `top_token` (text, pretrained: the token
the query token weights most in the chosen head)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

FACTS = "_lesson_facts"


def forget() -> None:
    """Drop what the previous run published (called before the page runs)."""
    st.session_state.pop(FACTS, None)


def publish(name: str, answer: str, options: Sequence[str]) -> None:
    """What the page shows now: the answer to `name` and the options to offer (each once)."""
    st.session_state.setdefault(FACTS, {})[name] = (answer, list(dict.fromkeys(options)))


def computed(name: str) -> tuple[str, list[str]] | None:
    """(answer, options) the page published in this run for `name`, or None."""
    return st.session_state.get(FACTS, {}).get(name)
