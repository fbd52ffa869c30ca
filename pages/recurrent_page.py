"""Page 8: an RNN encoder–decoder learns to translate dates with attention, beside the same model
without it; the alignment forms as it trains; why transformers dropped the recurrence
(seed 002)."""

import streamlit as st

from attnviz.data.dates import MAX_IN, NOTES
from attnviz.topics.recurrent.scene import SCENE, restored
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.widgets import draw
from attnviz.ui.parts.recurrent import (
    PROBE_NOTE,
    encoder_section,
    length_section,
    scores,
    timing_section,
    your_date,
)
from attnviz.ui.training.page import TrainingPage
from attnviz.ui.training.run_view import LiveRun

TABLE = SCENE.table

page = TrainingPage(
    SCENE,
    "Recurrent networks and attention",
    "An RNN reads a sentence one character at a time; a decoder then writes the translation. "
    "Without attention, everything it writes must come from the encoder's last state, one vector. "
    "With attention (Bahdanau et al., 2015) the decoder looks back over **every** encoder state "
    "as it writes each character. Both models train here side by side on the same dates "
    "(“23 nov 2026” → “2026-11-23”). Press **Start** and watch the alignment form.",
    ["Task", "Model"],
)
task_col, model_col = page.groups
with task_col:
    chosen = {"rn_task": draw(TABLE, "rn_task")}
    st.caption(NOTES[chosen["rn_task"]])
    chosen["rn_ntrain"] = draw(TABLE, "rn_ntrain")
with model_col:
    chosen |= {key: draw(TABLE, key) for key in ("rn_cell", "rn_bi", "rn_score", "rn_hidden")}
values = page.settle(chosen)
untrained = page.untrained()  # step 0


def draw_live(run: LiveRun) -> None:
    """Scores, the probe's alignment, your own date, accuracy by length and the encoder's states
    through the shown snapshot (step 0 before a run), while a run goes too (a lesson's stage may
    show any of them during its run)."""
    state = run.state
    snapshot = run.snapshot if run.snapshot is not None else untrained
    map_col, score_col = st.columns([2.3, 1])
    with score_col:
        scores(state.history if state is not None and run.snapshot is not None else None)
    st.markdown("**Your own date**")
    text = draw(TABLE, "rn_input", max_chars=MAX_IN * 20)
    shown = SCENE.values(values, rn_input=text)
    figs = SCENE.views(snapshot, shown, step=run.step)
    with map_col:
        show(figs["rn_alignment"], "rn_alignment", key="rn_alignment_chart")
        st.caption(PROBE_NOTE)
    pair = restored(snapshot, shown)
    your_date(pair, text, figs)
    length_section(snapshot, shown, (repr(run.spec), run.step))  # once per snapshot, runs too
    encoder_section(snapshot, shown, pair)  # one date through the encoder: while a run goes too


page.panel(draw_live, model_name="with attention")
timing_section(values["device"])
layout.try_this(SCENE.try_this)
