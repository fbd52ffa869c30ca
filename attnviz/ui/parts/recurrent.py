"""The recurrence page's sections around its scene's views (attnviz.topics.recurrent.scene): both
models' scores, the probe's caption, your own date through both models, exact match by input
length, the encoder's states (one-way vs two-way), and the live sequential-vs-parallel timing.
Heavy sections are lazy expanders (computed only while open; open state in the URL)."""

from __future__ import annotations

from collections.abc import Hashable

import streamlit as st

from attnviz.data.dates import MAX_IN
from attnviz.topics.recurrent.scene import (
    BASELINE,
    ENCODER_VIEWS,
    LENGTHS,
    MODEL_NAMES,
    SCENE,
    TOKEN_ACCURACY,
    TrainedRecurrent,
    Translation,
    summary,
    timing_views,
)
from attnviz.training.snapshot import Snapshot
from attnviz.ui.common.figures import show
from attnviz.ui.common.layout import lazy_expander
from attnviz.ui.common.measured import measured
from attnviz.ui.common.view_cache import kept

SPAN_WORDS = {
    "earlier": "has read the characters up to it (lower triangle)",
    "later": "has read the characters from it to the end (upper triangle)",
    "all": "has read every character",
}


def scores(history) -> None:
    """Both models' exact match and per-token accuracy on unseen dates, once evaluated (one
    above the other)."""
    evaluated = history is not None and history.val_metric
    when = f"at step {history.eval_step[-1]}" if evaluated else "before training"
    st.markdown("**Exact match on unseen dates**")
    values = {
        MODEL_NAMES[0]: (history.val_metric[-1], history.latest_extra(TOKEN_ACCURACY))
        if evaluated
        else None,
        BASELINE: (
            history.latest_extra(f"{BASELINE} val_metric"),
            history.latest_extra(f"{BASELINE} {TOKEN_ACCURACY}"),
        )
        if evaluated
        else None,
    }
    for name, got in values.items():
        exact = "–" if got is None or got[0] is None else f"{got[0]:.1%}"
        tokens = "" if got is None or got[1] is None else f"{got[1]:.1%} of characters"
        st.metric(
            name,
            exact,
            tokens or None,
            delta_color="off",
            delta_arrow="off",
            help=f"Validation dates never trained on, {when}",
        )


PROBE_NOTE = (
    "Row = the output character being written, columns = the input characters; each row sums "
    "to 1. A trained model writes each digit of the year while looking at that digit. Scrub the "
    "timeline (once paused or done) to watch the alignment form."
)


def your_date(pair: TrainedRecurrent, text: str, figs: dict) -> None:
    """Both models' translations of the typed date, what the rule says, and its alignment (the
    scene's `rn_your_alignment`, absent when nothing could be translated)."""
    result = SCENE.ops.translate(pair, text)
    for problem in result.problems:
        st.warning(problem, icon=":material/info:")
    if not result.output and result.alignment is None and not result.baseline_output:
        return
    _translations(result)
    if "rn_your_alignment" in figs:
        show(figs["rn_your_alignment"], "rn_your_alignment", key="rn_your_alignment_chart")


def _translations(result: Translation) -> None:
    columns = st.columns(3)
    right = result.expected
    for column, (name, out) in zip(
        columns[:2],
        ((MODEL_NAMES[0], result.output), (BASELINE, result.baseline_output)),
        strict=True,
    ):
        mark = "" if right is None else (" ✓" if out == right else " ✗")
        column.metric(
            f"{name} writes",
            out or "(nothing)",
            mark.strip() or None,
            delta_color="off",
            delta_arrow="off",
        )
    columns[2].metric("the rule says", right if right is not None else "not a date it reads")


def length_section(snapshot: Snapshot, values: dict, shot: Hashable) -> None:
    """Exact match by input length for both models (lazy: decodes the whole validation set, so
    once per snapshot `shot` names, also while a run polls twice a second)."""
    with lazy_expander(
        "Accuracy by input length: with and without attention", "rn_open_length"
    ) as box:
        if not box.open:
            return
        figure = kept(
            ("rn_length", shot),
            values,
            lambda reads: SCENE.views(snapshot, reads, only={"rn_length"})["rn_length"],
        )
        show(figure, "rn_length", key="rn_length_chart")
        st.caption(
            "Solid: the share of output characters written right; dotted: whole dates written "
            "exactly. Without attention the decoder must rebuild every character from one vector, "
            "the encoder's last state: the longer the input, the more that vector must hold "
            "(clearest on **reverse**, whose output is as long as its input)."
        )


def encoder_section(snapshot: Snapshot, values: dict, pair: TrainedRecurrent) -> None:
    """The encoder's states over time and what each has read, per direction."""
    with lazy_expander(
        "Inside the encoder: hidden states, one-way vs two-way", "rn_open_states"
    ) as box:
        if not box.open:
            return
        text = values["rn_input"]
        figs = SCENE.views(snapshot, values, only=set(ENCODER_VIEWS))
        if not figs:
            st.info(f"Type a date above (at most {MAX_IN} characters) to see its states.")
            return
        reading = SCENE.ops.read_encoder(pair.model, text)
        columns = st.columns(len(reading.directions))
        for column, name, read in zip(columns, reading.directions, reading.read, strict=True):
            with column:
                for view in (f"rn_states_{name}", f"rn_read_{name}"):
                    show(figs[view], view, key=f"{view}_chart")
                st.caption(f"Each {name} state {SPAN_WORDS[SCENE.ops.reading_span(read)]}.")
        if len(reading.directions) == 1:
            st.caption(
                "A one-way encoder: a state knows nothing of the characters after it. Switch on "
                "**bidirectional encoder** to add a backward half that reads from the end."
            )


def timing_section(device: str) -> None:
    """Sequential vs parallel, measured now on this machine when asked."""
    with lazy_expander("Sequential vs parallel: time it on this machine", "rn_open_timing") as box:
        if not box.open:
            return
        st.markdown(
            "An RNN must compute its states one after another: T steps for T tokens. A "
            "self-attention layer computes every position at once, but its scores grow as T². "
            f"One forward pass of each, same width (128), batch 8, on **{device}**:"
        )
        take = lambda: SCENE.ops.measure(LENGTHS, device, seconds=0.05)  # noqa: E731
        rows = measured("rn_timing", "rn_measure", device, "Timing both at 16 … 1024 tokens", take)
        if rows is None:
            return
        figs = timing_views(rows)
        left, right = st.columns([1.4, 1])
        with left:
            show(figs["rn_timing"], "rn_timing", key="rn_timing_chart")
        with right:
            show(
                figs["rn_sequential_steps"], "rn_sequential_steps", key="rn_sequential_steps_chart"
            )
        st.markdown(summary(rows))
