"""Page 9: a captioner learns to describe generated scenes; for every word it writes, its
cross-attention over the image's regions is drawn on the image (Show, Attend and Tell; seed 002)."""

from attnviz.data.captions import CaptionTaskSpec
from attnviz.models.captioner import CaptionerConfig
from attnviz.topics.captioning.inference import caption_image
from attnviz.topics.captioning.params import HELD_OUT, TABLE, TRY_THIS
from attnviz.topics.captioning.task import CaptionJobSpec, restore, untrained
from attnviz.topics.training_params import train_config
from attnviz.ui import layout
from attnviz.ui.captioning_sections import (
    heads_section,
    held_out_section,
    matrix_view,
    pick_image,
    scores,
    share_section,
    words_view,
)
from attnviz.ui.settings import settings
from attnviz.ui.training_form import training_form
from attnviz.ui.training_panel import LiveRun, training_panel
from attnviz.ui.widgets import draw, preset_buttons, reset_button

layout.intro(
    "Captioning: words that look at the image",
    "A small CNN turns the image into a 6 × 6 grid of region vectors; a decoder writes the "
    "caption one word at a time, and before each word it attends over the regions (the "
    "cross-attention of every encoder–decoder: translation, speech, captions). The scenes are "
    "generated, their captions follow a small grammar (“a large red square left of a small "
    "blue circle”), and blue triangles can be held out of training. Press **Start** and watch "
    "each word learn where to look (Show, Attend and Tell; Xu et al., 2015).",
)
preset_buttons(TABLE, per_row=2)
reset_button(TABLE)
places = layout.training_layout(["Scenes", "Captioner", "Training"])
data_col, model_col, train_col = places.groups
with data_col:
    n_shapes = draw(TABLE, "cp_shapes")
    n_train = draw(TABLE, "cp_ntrain")
    held = draw(TABLE, "cp_held")
with model_col:
    decoder = draw(TABLE, "cp_decoder")
    transformer = decoder == "transformer"
    score = draw(TABLE, "cp_score", disabled=transformer)
    d_model = draw(TABLE, "cp_d")
    layers = draw(TABLE, "cp_layers", disabled=not transformer)
    heads = draw(TABLE, "cp_heads", disabled=not transformer)
with train_col:
    form = training_form(TABLE)

seed = settings().seed
task = CaptionTaskSpec(n_shapes=n_shapes, n_train=n_train, seed=seed,
                       held_out=HELD_OUT if held else (), held_out_share=0.25 if held else 0.0)  # fmt: skip
model = CaptionerConfig(decoder=decoder, score=score, d_model=d_model, n_layer=layers,
                        n_head=heads, width=8)  # fmt: skip
spec = CaptionJobSpec(task, model, settings().device)
config = train_config(TABLE.prefix, form, eval_every=50, snapshot_every=50, seed=seed)


def draw_live(run: LiveRun) -> None:
    """The chosen image captioned by the shown snapshot (step 0 before a run), word by word with
    where each word looked, the scores and the matrix; once paused or over, the experiments."""
    state = run.state
    snapshot = run.snapshot if run.snapshot is not None else untrained(run.spec)
    trained = restore(run.spec, snapshot)
    shown, head = pick_image(trained)
    look = caption_image(trained.model, shown.image)
    words_view(look, shown, head, run.step)
    scores(state.history if state is not None and run.snapshot is not None else None)
    matrix_view(look, head, trained.model.config.grid)
    if state is not None and state.active:
        return
    heads_section(look, shown)
    share_section(trained, run.step)
    held_out_section(trained)


with places.stage:
    training_panel("cp", spec, config, draw_live, problems=model.problems() + task.problems(),
                   buttons_in=places.buttons)  # fmt: skip

layout.try_this(TRY_THIS)
