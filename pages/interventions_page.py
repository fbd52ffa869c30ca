"""Finding the heads that answer: interventions on the bundled language model (activation and
attribution patching, direct logit attribution, knocking heads out), layout over its scene
(attnviz.topics.interventions.scene)."""

import streamlit as st

from attnviz.io.user_text import md_literal
from attnviz.topics.interventions.scene import SCENE, changes
from attnviz.ui.common import layout
from attnviz.ui.common.figures import show
from attnviz.ui.common.widgets import preset_buttons, reset_button
from attnviz.ui.lecture.answers import publish
from attnviz.ui.parts.interventions import (
    ablate_section,
    circuit_section,
    dla_section,
    heads_section,
    pair_inputs,
    resid_patching,
    views,
)
from attnviz.ui.parts.language_model import model_run

TABLE = SCENE.table

layout.intro(
    "Finding the heads that answer",
    "Why does the model say **Mary**, not John? Looking at attention shows where a head looks, "
    "not whether that matters. Here you intervene on the real SmolLM2-135M: run a **clean** "
    "prompt and a **corrupted** one that differs in one place, then put pieces of the clean run "
    "into the corrupted one, split the answer into each head's part, or knock heads out.",
)
preset_buttons(TABLE)
reset_button(TABLE)
values = SCENE.values(pair_inputs())
out = model_run(
    SCENE, values, values["ip_model"]
)  # the model loaded first; a pair it cannot use stops here

for note in out.pair.notes:
    st.info(md_literal(note))
show(views(out, values, {"ip_diff"})["ip_diff"], "ip_diff")
st.caption(
    f"Right {md_literal(out.right)}, wrong {md_literal(out.wrong)}; the prompts differ: "
    f"{md_literal(changes(out))} ({len(out.pair.clean)} tokens each)."
)
resid_patching(out, values)
publish(SCENE.answers(out, values))  # after the sweep: the questions read it

heads_section(out, values)
dla_section(out, values)
ablate_section(out, values)
circuit_section(out, values)
layout.try_this(SCENE.try_this)
