"""The text page's Streamlit layout beyond its storyboard: notes, the head view's heads, the
long-input views, and the fold-out sections: vectors, the padded batch, experiments (a)–(d).

Each section is a lazy expander (attnviz.ui.common.layout.lazy_expander): its figures are asked of
the scene (attnviz.topics.text.scene, SECTION_VIEWS) only while it is open, and whether it is open
is part of the URL, so a lecturer can share a link that opens straight onto one experiment.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from attnviz.topics.text.scene import (
    PAIR_MAX,
    SCENE,
    SECTION_VIEWS,
    TEMPERATURES,
    TextOutcome,
    readable,
    shuffle_lesson,
    temperature_sweep,
)
from attnviz.ui.common import here
from attnviz.ui.common.figures import show
from attnviz.ui.common.layout import lazy_expander
from attnviz.ui.common.widgets import draw


def heads_to_draw(picked, heads: int) -> list[int]:
    """The head view's heads: those picked that exist; none picked (every pill deselected, or a
    stale choice from before the head count changed) draws every head, and says so."""
    kept = sorted(h for h in (picked or []) if 0 <= h < heads)
    if not kept:
        st.caption("No head picked: the head view shows every head.")
    return kept or list(range(heads))


def bpe_note(tokens: list[str], tokenizer: str) -> None:
    """Explains the byte pieces of a BPE character (ß‹1/2›) when the tokens hold any."""
    if tokenizer == "bpe" and any("‹" in t for t in tokens):
        st.caption(
            "This BPE works on **bytes**, not characters: a character outside ASCII is 2–4 "
            "bytes in UTF-8 (ß is C3 9F), and where the learned merges never joined them, each "
            "byte is its own token. Such tokens are labelled with the character and the bytes "
            "they hold, e.g. ß‹1/2› and ß‹2/2›."
        )


TOKENS_PER_ROW = 12  # a row of the token table that fits a 1280 px screen
LECTURE_TOKENS_PER_ROW = 6  # in lecture mode's larger type (a row of 8 was cut at 1280 px)
LONG_TABLE = 48  # above this many tokens the table is one column that scrolls (cheap to draw)
# a column of the table in lecture type: 14 px a character and 36 of padding, at least 110 px (the
# grid's own minimum), after 90 px for the row names
STAGE_CHAR_PX, STAGE_CELL_PAD_PX, STAGE_COLUMN_MIN, STAGE_NAMES_PX = 14, 36, 110, 90


def per_row(tokens: list[str], lecture: bool, across: int | None) -> int:
    """Tokens per row of the table: on a presenter's stage `across` px wide as many as that
    holds (its rows are then fewer and the stage zooms it less), else TOKENS_PER_ROW (lecture
    mode's 6)."""
    if across is None:
        return LECTURE_TOKENS_PER_ROW if lecture else TOKENS_PER_ROW
    widest = STAGE_CHAR_PX * max(len(t) for t in tokens) + STAGE_CELL_PAD_PX
    column = max(STAGE_COLUMN_MIN, widest)
    return max(LECTURE_TOKENS_PER_ROW, min(TOKENS_PER_ROW, (across - STAGE_NAMES_PX) // column))


def token_table(
    tokens: list[str], ids: list[int], heading: str, name: str, lecture: bool = False
) -> None:
    """The tokens with their ids: rows of TOKENS_PER_ROW that read like the sentence (each
    column named by its position), so none is cut at the right; a long text gets a column. On a
    presenter's stage (as the view `name`), the tokens alone (the table a third shorter, so it
    is zoomed less)."""
    st.markdown(heading)
    if len(tokens) > LONG_TABLE:
        table = pd.DataFrame({"token": tokens, "id": [str(i) for i in ids]})
        st.dataframe(table, height=240, width="content")
        return
    stage = here.stage()
    across = stage.width(name) if stage is not None else None  # None: not on a stage
    step, staged = per_row(tokens, lecture, across), across is not None
    for start in range(0, len(tokens), step):
        part = slice(start, start + step)
        positions = range(start, start + len(tokens[part]))
        columns = {"token": tokens[part]} | ({} if staged else {"id": [str(i) for i in ids[part]]})
        st.dataframe(pd.DataFrame(columns, positions).T, width="stretch")  # on a stage: no ids


def pronoun_note(text: str, pronoun_text: str) -> None:
    """The pronoun puzzle runs on random weights: say so before its maps."""
    if text.strip() == pronoun_text:
        st.info(
            "**Random weights, not a trained model.** This layer's $W_q$, $W_k$, $W_v$ are seeded "
            "random numbers: whatever 'it' attends to here is chance, not an answer to the "
            "puzzle. A trained model's answer is on the **Pretrained model explorer** (its "
            "*Pronoun coreference* preset)."
        )


def _show_all(figs: dict, names: tuple[str, ...]) -> None:
    for name in names:
        if name in figs:
            show(figs[name], name)


def vectors(out: TextOutcome, values: dict[str, Any]) -> None:
    with lazy_expander("Embeddings, positions and outputs", "ta_open_vectors") as box:
        if not box.open:
            return
        figs = SCENE.views(out, values, only=SECTION_VIEWS["vectors"])
        _show_all(figs, ("emb",))
        if out.config.positional == "none":
            st.info("No positional encoding: the model sees a bag of tokens (experiment a).")
        _show_all(figs, ("positional", "sinusoids", "out"))


def padding(out: TextOutcome, values: dict[str, Any]) -> None:
    with lazy_expander("Padding mask: a batch of two sentences", "ta_open_pad") as box:
        # drawn while closed too (cheap), so they keep their values, links and presets
        values["ta_second"] = draw(SCENE.table, "ta_second", max_chars=2000)
        values["ta_padmask"] = draw(SCENE.table, "ta_padmask")
        if not box.open:
            return
        figs = SCENE.views(out, values, only=SECTION_VIEWS["padding"])
        for col, name in zip(st.columns(2), SECTION_VIEWS["padding"], strict=True):
            with col:
                show(figs[name], name)
        st.caption(f"Each sentence uses its first {PAIR_MAX} tokens.")


def shuffle(out: TextOutcome, values: dict[str, Any]) -> None:
    label = "(a) Why positional encodings? Shuffle the tokens"
    with lazy_expander(label, "ta_open_shuffle") as box:
        if not box.open:
            return
        names = SECTION_VIEWS["shuffle"]
        figs = SCENE.views(out, values, only=names)
        runs = SCENE.ops.shuffle(out.attention.tokens, out.config)
        diffs = {pe: exp["max_difference"] for pe, exp in runs.items()}
        for pe, pair in zip(diffs, (names[:2], names[2:]), strict=True):
            st.markdown(
                f"**positional = {pe}**: max |attention(shuffled) − P·attention·Pᵀ| = "
                f"`{readable(diffs[pe])}`"
            )
            for col, name in zip(st.columns(2), pair, strict=True):
                with col:
                    show(figs[name], name)
        st.info(shuffle_lesson(diffs, out.config.causal))


def saturation(out: TextOutcome, values: dict[str, Any]) -> None:
    with lazy_expander("(b) Why divide by √d_k? Softmax saturation", "ta_open_sat") as box:
        if not box.open:
            return
        show(SCENE.views(out, values, only=SECTION_VIEWS["saturation"])["saturation"], "saturation")
        st.caption(
            r"For random $q, k$ with unit-variance entries, $q\cdot k$ has variance $d_k$: "
            "unscaled, the softmax saturates towards one-hot and the entropy falls; divided by "
            r"$\sqrt{d_k}$ it stays level."
        )


def causal(out: TextOutcome, values: dict[str, Any]) -> None:
    with lazy_expander("(c) The causal mask", "ta_open_causal") as box:
        if not box.open:
            return
        figs = SCENE.views(out, values, only=SECTION_VIEWS["causal"])
        for col, name in zip(st.columns(2), SECTION_VIEWS["causal"], strict=True):
            with col:
                show(figs[name], name)
        st.caption(
            r"With the mask every weight above the diagonal is exactly 0 (score $-\infty$ before "
            r"the softmax): token $i$ sees only tokens $0,\dots,i$, as a decoder (GPT) must when "
            "predicting the next."
        )


def temperature(out: TextOutcome, values: dict[str, Any]) -> None:
    with lazy_expander("(d) Temperature", "ta_open_temp") as box:
        if not box.open:
            return
        show(
            SCENE.views(out, values, only=SECTION_VIEWS["temperature"])["temperature"],
            "temperature",
        )
        _, ent = temperature_sweep(out, values)
        per_tau = ", ".join(f"τ={tau:g}: {e:.2f}" for tau, e in zip(TEMPERATURES, ent, strict=True))
        st.caption(
            f"Entropy of the row per temperature: {per_tau} nats. The row is "
            r"$\operatorname{softmax}(s/\tau)$: small $\tau$ → one-hot (a hard select), large "
            r"$\tau$ → uniform (the mean)."
        )


def long_input(out: TextOutcome, values: dict[str, Any], head: int) -> None:
    """For a long input (the grid above is max-pooled), the scene's two views that keep its
    structure: each query's largest weights, and the map at full resolution around the query."""
    figs = SCENE.views(out, values, only={"top_k", "window"})
    if "top_k" not in figs:
        return
    tokens = out.attention.tokens
    st.markdown(f"**Long input ({len(tokens)} tokens): head {head} at full resolution**")
    _show_all(figs, ("top_k", "window"))
