"""Page 9: a captioner learns to describe generated scenes; for every word it writes, its
cross-attention over the image's regions is drawn on the image (Show, Attend and Tell; seed 002):
layout over its scene (attnviz.topics.captioning.scene)."""

from attnviz.topics.captioning.scene import SCENE, captioned, figures
from attnviz.ui.common.widgets import draw
from attnviz.ui.parts.captioning import (
    heads_section,
    held_out_section,
    matrix_view,
    pick_image,
    scores,
    share_section,
    words_view,
)
from attnviz.ui.training.page import TrainingPage
from attnviz.ui.training.run_view import LiveRun

TABLE = SCENE.table

page = TrainingPage(
    SCENE,
    "Captioning: words that look at the image",
    "A decoder writes the caption one word at a time, and before each word it attends over the "
    "image's regions. A small CNN turns the image into a 6 × 6 grid of region vectors; the "
    "words' attention over them is the cross-attention of every encoder–decoder (translation, "
    "speech, captions). The scenes are "
    "generated, their captions follow a small grammar (“a large red square left of a small "
    "blue circle”), and blue triangles can be held out of training. Press **Start** and watch "
    "each word learn where to look (Show, Attend and Tell; Xu et al., 2015).",
    ["Scenes", "Captioner"],
)
data_col, model_col = page.groups
with data_col:
    chosen = {key: draw(TABLE, key) for key in ("cp_shapes", "cp_ntrain", "cp_held")}
with model_col:
    chosen["cp_decoder"] = draw(TABLE, "cp_decoder")
    transformer = chosen["cp_decoder"] == "transformer"
    chosen["cp_score"] = draw(TABLE, "cp_score", disabled=transformer)
    chosen["cp_d"] = draw(TABLE, "cp_d")
    chosen["cp_layers"] = draw(TABLE, "cp_layers", disabled=not transformer)
    chosen["cp_heads"] = draw(TABLE, "cp_heads", disabled=not transformer)
values = page.settle(chosen)
job, untrained = page.job, page.untrained()  # what Start submits; step 0


def draw_live(run: LiveRun) -> None:
    """The chosen image captioned by the shown snapshot (step 0 before a run), word by word with
    where each word looked, the scores, the matrix and what it says for held-out combinations;
    once paused or over, the heads and the attention on the named object."""
    state = run.state
    snapshot = run.snapshot if run.snapshot is not None else untrained
    shown_values, shown = pick_image(values, job.spec)
    seen = captioned(snapshot, shown_values, step=run.step, shown=shown)
    figs = figures(seen)  # the scene's views of this snapshot
    words_view(seen, figs)
    scores(state.history if state is not None and run.snapshot is not None else None)
    matrix_view(seen, figs)
    held_out_section(seen)  # (what it says for a blue triangle: ~0.1 s, redrawn as it learns)
    if state is not None and state.active:
        return
    heads_section(seen)
    share_section(seen)


page.panel(draw_live)
