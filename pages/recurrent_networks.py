"""Page 8: an RNN encoder–decoder learns to translate dates with attention, beside the same model
without it; the alignment forms as it trains; why transformers dropped the recurrence
(seed 002)."""

import streamlit as st

from attnviz.data.dates import NOTES, DateTaskSpec
from attnviz.models.rnn import Seq2SeqConfig
from attnviz.topics.recurrent.params import TABLE, TRY_THIS
from attnviz.topics.recurrent.task import RecurrentJobSpec, restore, untrained
from attnviz.topics.training_params import train_config
from attnviz.ui import layout
from attnviz.ui.recurrent_sections import (
    encoder_section,
    length_section,
    probe_alignment,
    scores,
    timing_section,
    your_date,
)
from attnviz.ui.settings import settings
from attnviz.ui.training_form import training_form
from attnviz.ui.training_panel import LiveRun, training_panel
from attnviz.ui.widgets import draw, preset_buttons, reset_button

layout.intro(
    "Recurrent networks and attention",
    "An RNN reads a sentence one character at a time; a decoder then writes the translation. "
    "Without attention, everything it writes must come from the encoder's last state, one vector. "
    "With attention (Bahdanau et al., 2015) the decoder looks back over **every** encoder state "
    "as it writes each character. Both models train here side by side on the same dates "
    "(“23 nov 2026” → “2026-11-23”). Press **Start** and watch the alignment form.",
)
preset_buttons(TABLE, per_row=3)
reset_button(TABLE)
places = layout.training_layout(["Task", "Model", "Training"])
task_col, model_col, train_col = places.groups
with task_col:
    task_name = draw(TABLE, "rn_task")
    st.caption(NOTES[task_name])
    n_train = draw(TABLE, "rn_ntrain")
with model_col:
    cell = draw(TABLE, "rn_cell")
    bidirectional = draw(TABLE, "rn_bi")
    score = draw(TABLE, "rn_score")
    hidden = draw(TABLE, "rn_hidden")
with train_col:
    form = training_form(TABLE)

seed = settings().seed
task = DateTaskSpec(task_name, n_train=n_train, seed=seed)
model = Seq2SeqConfig(d_embed=32, d_hidden=hidden, cell=cell, bidirectional=bidirectional,
                      attention=score)  # fmt: skip
spec = RecurrentJobSpec(task, model, settings().device)
config = train_config(TABLE.prefix, form, eval_every=50, snapshot_every=50, seed=seed)


def draw_live(run: LiveRun) -> None:
    """Scores, the probe's alignment and your own date through the shown snapshot (step 0
    before a run); once paused or over, accuracy by length and the encoder's states."""
    state = run.state
    snapshot = run.snapshot if run.snapshot is not None else untrained(run.spec)
    pair = restore(run.spec, snapshot)
    map_col, score_col = st.columns([2.3, 1])
    with score_col:
        scores(state.history if state is not None and run.snapshot is not None else None)
    with map_col:
        probe_alignment(pair, snapshot["alignment"], run.step)
    text = your_date(pair)
    if state is not None and state.active:
        return
    length_section(pair)
    encoder_section(pair, text)


with places.stage:
    training_panel("rn", spec, config, draw_live, buttons_in=places.buttons,
                   model_name="with attention")  # fmt: skip

timing_section(settings().device)
layout.try_this(TRY_THIS)
