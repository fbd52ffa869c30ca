"""The lesson checker refuses a step whose narration or pointer names what its stage does not show
(attnviz.lessons.stage_check): a control it asks the presenter to move, the figure it points at,
another view of the page by its title. The bundled lessons pass it (tests/engine/test_lessons.py,
every step). Each case below is a lesson a lecturer could write, with the words the error must
quote written out here."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.lessons.loader import parse_lesson
from attnviz.lessons.model import LessonError
from attnviz.lessons.stage_check import check_stage, control_names

HEADER = 'title = "T"\nsummary = "S"\nseeds = ["004"]\n\n'


def lesson(page: str, narration: str, more: str = "", point_at: str = "the bars"):
    text = (
        f'{HEADER}[[steps]]\npage = "{page}"\ntitle = "A"\n'
        f"narration = '''\n{narration}'''\npoint_at = \"{point_at}\"\n{more}"
    )
    return parse_lesson(text, "mine.toml")


def test_a_control_is_called_by_its_label_its_last_word_or_what_precedes_its_symbol():
    assert control_names("query q, dimension 1") == {"query q", "q", "query"}
    assert control_names("early stopping patience (0 = off)") == {
        "early stopping patience",
        "patience",
    }
    assert control_names("head") == {"head"}


@pytest.mark.parametrize(
    ("page", "narration", "words", "key"),
    [
        ("soft-select", "The weights move. Set $q$ back to $(0.5, 0.5)$.", "set q", "ss_q1"),
        ("text", "Four heads. Step through them with the head slider.", "head slider", "ta_head"),
        ("recurrent", "Rows sum to 1. Scrub the timeline to step 0.", "scrub the timeline", None),
        (
            "soft-select",
            "Sharper. Lower the **temperature** to 0.1.",
            "lower the temperature",
            None,
        ),
    ],
)
def test_a_narration_asking_for_a_control_the_stage_lacks_is_refused(page, narration, words, key):
    views = {"soft-select": "weights", "text": "query_row", "recurrent": "rn_alignment"}[page]
    step = lesson(page, narration, f'views = ["{views}"]\n')
    with pytest.raises(LessonError, match=rf"mine.toml, line 5: it asks for '{words}', a control"):
        check_stage(step, "mine.toml")
    if key:  # with the control on its stage, the same step passes
        check_stage(lesson(page, narration, f'views = ["{views}"]\ncontrols = ["{key}"]\n'), "")


def test_a_control_moved_by_clicking_a_view_on_the_stage_needs_no_widget():
    """The key plane's title says "click to move it" (the query): moving q is done there."""
    narration = "One key wins. Move $q$ and the whole distribution moves."
    check_stage(lesson("soft-select", narration, 'views = ["key_plane"]\n'), "mine.toml")
    with pytest.raises(LessonError, match="it asks for 'move q'"):
        check_stage(lesson("soft-select", narration, 'views = ["weights"]\n'), "mine.toml")


def test_a_step_without_views_shows_its_whole_page_and_is_not_refused():
    check_stage(lesson("text", "Four heads. Use the head slider."), "mine.toml")


def test_a_figure_that_is_not_a_title_on_the_stage_is_refused():
    more = 'views = ["sv_cache"]\nfigure = "KV cache per token"\n'
    with pytest.raises(LessonError, match="'figure' names 'KV cache per token', not a title"):
        check_stage(lesson("attention-since-2017", "Fewer heads. Smaller cache.", more), "")
    more = 'views = ["sv_cache"]\nfigure = "kv CACHE  bytes per token"\n'  # case, spaces
    check_stage(lesson("attention-since-2017", "Fewer heads. Smaller cache.", more), "")


def test_a_view_named_by_its_title_but_not_on_the_stage_is_refused():
    narration = "Six layers. Attention rollout multiplies the layers' maps."
    more = 'views = ["model_view"]\n[steps.params]\npe_open_layers = true\n'
    with pytest.raises(LessonError, match=r"names the view 'attention rollout' \(rollout\)"):
        check_stage(lesson("pretrained", narration, more), "mine.toml")
    more = 'views = ["model_view", "rollout"]\n[steps.params]\npe_open_layers = true\n'
    check_stage(lesson("pretrained", narration, more), "mine.toml")


def test_a_decimal_the_stage_does_not_show_is_refused():
    """A number quoted from a view passes at the precision it is quoted; any other is refused."""
    keys = np.array([[0.9, -0.9], [-0.8, -0.2], [0.6, 1.0], [0.7, -0.6], [0.2, 0.1]])  # the fruits
    scores = keys @ np.array([0.5, 0.5])  # q = (0.5, 0.5), dot product, temperature 1
    melon = np.exp(scores[2]) / np.exp(scores).sum()  # 0.368
    views = 'views = ["weights"]\n'
    for quoted in (f"{melon:.2f}", f"{melon:.3f}", f"{melon:.1f}"):
        check_stage(lesson("soft-select", f"The melon takes {quoted} of it.", views), "")
    with pytest.raises(LessonError, match="it quotes 0.42, a number its stage does not show"):
        check_stage(lesson("soft-select", "The melon takes 0.42 of it.", views), "")
    with pytest.raises(LessonError, match="it quotes −0.37, a number its stage"):  # the sign
        check_stage(lesson("soft-select", "The melon takes −0.37 of it.", views), "")
