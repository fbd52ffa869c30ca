"""The recurrence page's views of a trained (or untrained) pair: both models' scores, the probe's
alignment through the timeline, your own date through both models, exact match by input length,
the encoder's states (one-way vs two-way), and the live sequential-vs-parallel timing. Heavy
sections are lazy expanders (computed only while open; open state in the URL)."""

from __future__ import annotations

import streamlit as st

from attnviz.data.dates import MAX_IN
from attnviz.figures.recurrent import (
    alignment_figure,
    length_figure,
    read_figure,
    states_figure,
    steps_figure,
    timing_figure,
)
from attnviz.topics.recurrent.inference import (
    MODEL_NAMES,
    Translation,
    length_accuracy,
    read_encoder,
    reading_span,
    shown_chars,
    translate,
)
from attnviz.topics.recurrent.params import TABLE
from attnviz.topics.recurrent.task import BASELINE, TOKEN_ACCURACY, TrainedPair
from attnviz.topics.recurrent.timing import LENGTHS, forward_times, summary
from attnviz.ui.figures import show
from attnviz.ui.layout import lazy_expander
from attnviz.ui.widgets import draw

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
        st.metric(name, exact, tokens or None, delta_color="off",
                  delta_arrow="off", help=f"Validation dates never trained on, {when}")  # fmt: skip


def probe_alignment(pair: TrainedPair, alignment, step: int | None) -> None:
    """The snapshot's alignment for the probe date (teacher-forced: the right previous
    characters are fed in), output characters × input characters."""
    task = pair.task
    text, target = task.input_texts[task.probe], task.target_texts[task.probe]
    when = f"step {step}" if step is not None else "step 0 (untrained)"
    weights = alignment[: len(target) + 1, : len(text)]  # the target's characters and EOS
    figure = alignment_figure(weights, [*shown_chars(target), "<eos>"], shown_chars(text),
                              f"Alignment at {when}: “{text}” → “{target}”")  # fmt: skip
    show(figure, "rn_alignment", key="rn_alignment_chart")
    st.caption(
        "Row = the output character being written, columns = the input characters; each row "
        "sums to 1. A trained model writes each digit of the year while looking at that digit. "
        "Scrub the timeline (once paused or done) to watch the alignment form."
    )


def your_date(pair: TrainedPair) -> str:
    """Type a date: both models' translations, what the rule says, and the alignment. Returns
    the text typed."""
    st.markdown("**Your own date**")
    text = draw(TABLE, "rn_input", max_chars=MAX_IN * 20)
    result = translate(pair, text)
    for problem in result.problems:
        st.warning(problem, icon=":material/info:")
    if not result.output and result.alignment is None and not result.baseline_output:
        return text
    _translations(result)
    if result.alignment is not None and len(result.output):
        chars = shown_chars(result.output)
        figure = alignment_figure(result.alignment, chars, shown_chars(text),
                                  "Your date: where each character looked")  # fmt: skip
        show(figure, "rn_your_alignment", key="rn_your_alignment_chart")
    return text


def _translations(result: Translation) -> None:
    columns = st.columns(3)
    right = result.expected
    for column, (name, out) in zip(
        columns[:2],
        ((MODEL_NAMES[0], result.output), (BASELINE, result.baseline_output)),
        strict=True,
    ):
        mark = "" if right is None else (" ✓" if out == right else " ✗")
        column.metric(f"{name} writes", out or "(nothing)", mark.strip() or None, delta_color="off",
                      delta_arrow="off")  # fmt: skip
    columns[2].metric("the rule says", right if right is not None else "not a date it reads")


def length_section(pair: TrainedPair) -> None:
    """Exact match by input length for both models (lazy: decodes the whole validation set)."""
    with lazy_expander(
        "Accuracy by input length: with and without attention", "rn_open_length"
    ) as box:
        if not box.open:
            return
        rows = length_accuracy(pair)
        show(length_figure(rows, "Unseen dates by input length: with and without attention"), "rn_length",
             key="rn_length_chart")  # fmt: skip
        st.caption(
            "Solid: the share of output characters written right; dotted: whole dates written "
            "exactly. Without attention the decoder must rebuild every character from one vector, "
            "the encoder's last state: the longer the input, the more that vector must hold "
            "(clearest on **reverse**, whose output is as long as its input)."
        )


def encoder_section(pair: TrainedPair, text: str) -> None:
    """The encoder's states over time and what each has read, per direction."""
    with lazy_expander(
        "Inside the encoder: hidden states, one-way vs two-way", "rn_open_states"
    ) as box:
        if not box.open:
            return
        if not text.strip() or len(text) > MAX_IN:
            st.info(f"Type a date above (at most {MAX_IN} characters) to see its states.")
            return
        reading = read_encoder(pair.model, text)
        chars = shown_chars(text)
        columns = st.columns(len(reading.directions))
        for column, name, states, read in zip(
            columns, reading.directions, reading.states, reading.read, strict=True
        ):
            with column:
                arrow = "→" if name == "forward" else "←"
                show(states_figure(states, chars, f"{name} states {arrow}"), f"rn_states_{name}",
                     key=f"rn_states_{name}_chart")  # fmt: skip
                show(read_figure(read, chars, f"{name}: what state t has read"), f"rn_read_{name}",
                     key=f"rn_read_{name}_chart")  # fmt: skip
                st.caption(f"Each {name} state {SPAN_WORDS[reading_span(read)]}.")
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
        if st.button("Measure (about 5 s)", key="rn_measure", icon=":material/timer:"):
            with st.spinner("Timing both at 16 … 1024 tokens"):
                st.session_state["rn_timing"] = forward_times(LENGTHS, device, seconds=0.05)
        rows = st.session_state.get("rn_timing")
        if not rows or rows[0]["device"] != device:
            st.caption("Press Measure: the numbers are taken live, not stored.")
            return
        left, right = st.columns([1.4, 1])
        with left:
            show(timing_figure(rows, "One forward pass: RNN encoder vs self-attention"),
                 "rn_timing", key="rn_timing_chart")  # fmt: skip
        with right:
            show(steps_figure(rows), "rn_steps", key="rn_steps_chart")
        st.markdown(summary(rows))
